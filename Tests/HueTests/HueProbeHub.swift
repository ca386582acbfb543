import Foundation
import PatchbayTestSupport
import PatchbayValues

/// A hub with a hue instance named `lights` and an example-swift probe that records what the
/// hue ports publish (routes from `lights.PORT` to `probe.NAME`).
extension HubUnderTest {
  /// `hue` is the body of the `[instances.lights]` section after `plugin`; `probe` maps probe
  /// port names to (hue output port, type).
  func startHue(hue: String, groups: String, probe: [(name: String, from: String, type: String)]) throws {
    try linkBuiltPlugins(["hue", "example-swift"])
    let probePorts = probe.map { #"{ name = "\#($0.name)", type = "\#($0.type)", kind = "state" }"# }
    let routes = probe.map { "[[routes]]\nfrom = \"lights.\($0.from)\"\nto = \"probe.\($0.name)\"" }
    try writeConfig(
      """
      [instances.lights]
      plugin = "hue"
      \(hue)
      \(groups)

      [instances.probe]
      plugin = "example-swift"
      record = "\(path)/probe.jsonl"
      ports = [\(probePorts.joined(separator: ", "))]

      \(routes.joined(separator: "\n\n"))
      """)
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
