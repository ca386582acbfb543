import Foundation
import PatchbayTestSupport

/// What the flic-ble hub suites share: the `patchbay flic-ble` tool against the stand-in's bus,
/// and the values the example-swift probe recorded (its `record` is `DIRECTORY/probe.jsonl`).
extension HubUnderTest {
  /// `patchbay flic-ble ARGUMENTS` against the stand-in's bus.
  func flicBLETool(_ arguments: [String], bluez: BlueZStandIn) throws -> (status: Int32, output: String) {
    try cli(arguments: ["flic-ble"] + arguments, environment: bluez.bus.environment)
  }

  /// The values the probe recorded on one port, in order, as JSON text.
  func probeValues(_ port: String) -> [String] {
    let text = (try? String(contentsOfFile: directory.path + "/probe.jsonl", encoding: .utf8)) ?? ""
    let prefix = "{\"port\":\"\(port)\",\"value\":"
    return text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map {
      String($0.dropFirst(prefix.count).dropLast())
    }
  }

  /// The button actions the probe recorded on one port.
  func probeActions(_ port: String) -> [String] {
    probeValues(port).compactMap { value in
      guard let range = value.range(of: #""action":""#) else { return nil }
      return String(value[range.upperBound...].prefix { $0 != "\"" })
    }
  }
}
