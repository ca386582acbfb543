import Foundation
import HueProtocol
import PatchbayHub
import PatchbayTestSupport
import PatchbayValues

/// `patchbay run` with a hue instance named `lights` and an example-swift probe that records
/// what the hue ports publish (routes from `lights.PORT` to `probe.NAME`).
final class HueHub {
  let directory: TemporaryDirectory
  let process: ChildProcess
  let configPath: String
  var socketPath: String { directory.path + "/control.sock" }
  var probePath: String { directory.path + "/probe.jsonl" }

  /// `hue` is the body of the `[instances.lights]` section after `plugin`; `probe` maps probe
  /// port names to (hue output port, type).
  init(directory: TemporaryDirectory, hue: String, groups: String, probe: [(name: String, from: String, type: String)])
    throws
  {
    self.directory = directory
    let probePorts = probe.map { #"{ name = "\#($0.name)", type = "\#($0.type)", kind = "state" }"# }
    let routes = probe.map { "[[routes]]\nfrom = \"lights.\($0.from)\"\nto = \"probe.\($0.name)\"" }
    configPath = try directory.write(
      "patchbay.toml",
      """
      [hub]
      state_directory = "\(directory.path)/state"
      control_socket = "\(directory.path)/control.sock"

      [instances.lights]
      plugin = "hue"
      \(hue)
      \(groups)

      [instances.probe]
      plugin = "example-swift"
      record = "\(directory.path)/probe.jsonl"
      ports = [\(probePorts.joined(separator: ", "))]

      \(routes.joined(separator: "\n\n"))
      """)
    process = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    try process.waitForLine(containing: "hub started", within: 60)
  }

  /// Sends a value into an input port through the control socket (what `patchbay send` does).
  func send(_ address: String, _ value: String) throws {
    let response = try ControlClient.request(
      ControlRequest(command: .send, address: address, value: value), socket: socketPath)
    if !response.ok { throw SimulatorControlError(description: "send \(address): \(response.message ?? "refused")") }
  }

  /// The values the probe recorded on one port, oldest first.
  func recorded(_ port: String) -> [JSONValue] {
    let text = (try? String(contentsOfFile: probePath, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { JSONValue(data: Data($0.utf8)) }.filter {
      $0["port"]?.stringValue == port
    }.compactMap { $0["value"] }
  }

  func last(_ port: String) -> JSONValue? { recorded(port).last }

  deinit { _ = try? process.terminate(within: 30) }
}

extension JSONValue {
  /// True when the number at `key` (a path like "color.hue") is within 0.5 of `expected`.
  func has(_ path: String, near expected: Double, tolerance: Double = 0.5) -> Bool {
    var value: JSONValue? = self
    for key in path.split(separator: ".") { value = value?[String(key)] }
    guard let number = value?.numberValue else { return false }
    return abs(number - expected) <= tolerance
  }
}
