import Foundation
import PatchbayTestSupport
import PatchbayValues

/// A hub with a hue instance named `lights` and an example-swift probe that records what the
/// hue ports publish (routes from `lights.PORT` to `probe.NAME`).
extension HubUnderTest {
  /// `hue` is the `[instances.lights]` settings after `plugin` and its groups; `probe` maps
  /// probe port names to (hue output port, type).
  func startHue(hue: HubTOML, probe: [(name: String, from: String, type: String)]) throws {
    try linkBuiltPlugins(["hue", "example-swift"])
    try writeConfig(
      HubTOML().instance("lights", plugin: "hue") + hue
        + probe.reduce(
          HubTOML().probe(record: path + "/probe.jsonl", ports: probe.map { .state($0.name, $0.type) })
        ) { $0.route(from: "lights.\($1.from)", to: "probe.\($1.name)") })
    try start()
  }

  /// The values the probe recorded on one port, oldest first.
  func recorded(_ port: String) -> [JSONValue] {
    lines("probe.jsonl").compactMap { JSONValue(data: Data($0.utf8)) }.filter {
      $0["port"]?.stringValue == port
    }.compactMap { $0["value"] }
  }

  func last(_ port: String) -> JSONValue? { recorded(port).last }
}

extension JSONValue {
  /// True when the number at `key` (a path like "color.hue") is within 0.5 of `expected`.
  func has(_ path: String, near expected: Double, tolerance: Double = 0.5) -> Bool {
    var value: JSONValue? = self
    for key in path.split(separator: ".") { value = value?[String(key)] }
    guard let number = value?.doubleValue else { return false }
    return abs(number - expected) <= tolerance
  }
}
