import Foundation
import PatchbayTestSupport
import Testing

/// Each trigger says when it fires next on `next.NAME`, and `patchbay status` shows it: the
/// plugin declares those ports shown in status (ABI 1.2); the core knows no `next.` prefix.
@Suite(.serialized) struct NextTimeTests {
  @Test func statusShowsWhenEachTriggerFiresNext() throws {
    let hub = try HubUnderTest("patchbay-schedule", plugins: ["schedule"])
    try hub.writeConfig(
      HubTOML()
        .instance("clock", plugin: "schedule", ["time_zone": "Europe/Berlin"])
        .arrayTable("instances.clock.triggers", ["name": "new_year", "cron": "0 0 1 1 *"]))
    try hub.start()
    // The next 1 January, midnight in Berlin (+01:00 in winter).
    let year = Calendar(identifier: .gregorian).component(.year, from: Date()) + 1
    let expected = "clock: next.new_year \(year)-01-01T00:00:00+01:00"
    try eventually("status shows the next time") {
      let status = try runProgram(BuildProducts.executable("patchbay"), ["status", "--config", hub.configPath])
      return status.output.contains(expected)
    }
    let watched = try runProgram(
      BuildProducts.executable("patchbay"), ["status", "--json", "--config", hub.configPath]
    ).output
    #expect(watched.contains("\"next.new_year\" : \"\(year)-01-01T00:00:00+01:00\""), "\(watched)")
    try hub.stop()
  }
}
