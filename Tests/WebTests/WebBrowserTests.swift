import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The dashboard clicked in a real browser (headless Chromium through Selenium and chromedriver,
/// all Debian packages) against the bedside example on the simulators; the steps are in
/// Scripts/dashboard_clicks.py. Then patchbay-web is killed, and the hub and its plugins go on.
@Suite(.serialized) struct WebBrowserTests {
  @Test func partyRestartAndALivePressByClicksAndPatchbayWebDiesAlone() throws {
    let harness = try BedsideHarness()
    try harness.start()
    try harness.startWeb()
    let screenshots = WebScript.screenshots(harness.directory.path)
    try WebScript.runSteps(
      "dashboard_clicks", base: harness.base, config: harness.configPath,
      [
        "--flicd-control", harness.flicdControl, "--hue-control", harness.hueControl, "--button",
        BedsideHarness.button, "--screenshots", screenshots,
      ])
    for (name, width) in [("web-desktop.png", 1280), ("web-phone.png", 780)] {
      let png = try #require(FileManager.default.contents(atPath: screenshots + "/" + name), "no \(name)")
      // A PNG whose IHDR says the width asked for (the phone at 2 device pixels per CSS pixel).
      #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
      #expect(png.count > 16 && png[16..<20].reduce(0) { $0 << 8 | Int($1) } == width, "\(name) width")
    }

    // Killing the web server costs nothing else: the hub and every plugin process run on, with
    // the same pids, and a press still travels through the hub.
    let before = try harness.status()
    harness.web?.signal(SIGKILL)
    _ = try harness.web?.waitForExit(within: 30)
    #expect(harness.hub?.isRunning == true)
    let published = before["bedside"]?["messagesOut"] as? Int ?? -1
    try harness.flicd("press \(BedsideHarness.button) single")
    try eventually("the press after patchbay-web died reached the hub", within: 60) {
      (try harness.status()["bedside"]?["messagesOut"] as? Int ?? 0) > published
    }
    let after = try harness.status()
    for (name, instance) in before {
      #expect(after[name]?["pid"] as? Int == instance["pid"] as? Int, "\(name) pid changed")
      #expect(after[name]?["phase"] as? String == "running", "\(name): \(after[name] ?? [:])")
    }
    try harness.stop()
  }
}
