import Foundation
import PatchbayTestSupport

/// What the flic-ble hub suites share: the `patchbay flic-ble` tool against the stand-in's bus.
extension HubUnderTest {
  /// `patchbay flic-ble ARGUMENTS` against the stand-in's bus.
  func flicBLETool(_ arguments: [String], bluez: BlueZStandIn) throws -> (status: Int32, output: String) {
    try cli(arguments: ["flic-ble"] + arguments, environment: bluez.bus.environment)
  }
}
