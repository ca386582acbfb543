import Foundation
import PatchbayTestSupport
import Testing

/// The household view (the page's first view) in a real browser: headless Chromium through
/// Selenium against real hubs, the steps in Scripts/household_view.py and sensor_sparkline.py.
@Suite(.serialized) struct WebHouseholdTests {
  /// The bedside example on the simulators: the light tile in the Hue simulator's colours, a tap
  /// reaching it, switches that show the real state, state inputs with values, the routes graph
  /// inside its picture with labels, and a phone in dark mode without horizontal overflow.
  @Test func bedsideTilesShowTheSimulatorsLightsAndStates() throws {
    let harness = try BedsideHarness()
    try harness.start()
    try harness.startWeb()
    let screenshots = WebScript.screenshots(harness.directory.path)
    try WebScript.runSteps(
      "household_view", base: harness.base, config: harness.configPath,
      [
        "--flicd-control", harness.flicdControl, "--hue-control", harness.hueControl, "--button",
        BedsideHarness.button, "--screenshots", screenshots,
      ], within: 900)
    for name in ["web-household.png", "web-household-phone.png", "web-routes.png"] {
      let png = try #require(FileManager.default.contents(atPath: screenshots + "/" + name), "no \(name)")
      #expect(png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]), "\(name) is not a PNG")
    }
    try harness.stop()
  }

  /// An instance that is down marks its tiles with its state; the others stay up.
  @Test func anInstanceThatIsDownShowsSoOnItsTiles() throws {
    let harness = try WebHarness()
    try harness.startHub(
      extra: HubTOML().probe("hall", ports: [.state("lamp_on", "bool")], ["restart": "temporary"]))
    try harness.startWeb()
    try WebScript.runSteps("household_down", base: harness.base, config: harness.configPath)
    try harness.stop()
  }

  /// Values sent through a real hub show on a sensor tile's sparkline, read from the recorder's
  /// GET /api/history.
  @Test func sensorSparklineHasTheValuesSentThroughTheHub() throws {
    let harness = try WebHarness()
    try harness.startHub()
    // The recorder finds the hub's state directory and [recorder] table through the config.
    try harness.startWeb(extra: ["--config", harness.configPath])
    try WebScript.runSteps("sensor_sparkline", base: harness.base, config: harness.configPath)
    try harness.stop()
  }
}
