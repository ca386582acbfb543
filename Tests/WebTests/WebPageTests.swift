import Foundation
import PatchbayTestSupport
import Testing

/// The page in a real browser: headless Chromium (Debian's `chromium`) loads the dashboard, runs
/// its script, and dumps the DOM; the instances, routes and a value pushed live must be in it.
@Suite(.serialized) struct WebPageTests {
  static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  @Test func thePageRendersInstancesRoutesAndLiveValues() throws {
    let browser = try #require(Self.chromium, "headless Chromium is needed: scripts/bootstrap test installs it")
    let harness = try WebHarness()
    try harness.startHub()
    // Chromium's virtual time stands still while a request is open; short event streams (the
    // page reconnects at once) let it advance between them.
    try harness.startWeb(extra: ["--stream-seconds", "2"])
    let csrf = try HTTPCall.csrf(harness.base)
    func send(_ address: String, _ value: String) throws {
      _ = try HTTPCall.post(
        harness.base + "/api/send", json: #"{"address":"\#(address)","value":"\#(value)"}"#,
        ["-H", "X-Patchbay-CSRF: \(csrf)"])
    }
    try send("probe.night", "true")
    try eventually("the first value went round") { harness.recorded().contains { $0.contains("night_copy") } }

    // While the browser loads and runs the page, values keep flowing; the ones after its first
    // fetch can only reach the page through the live stream (those cells get class "changed").
    // On a loaded machine the page may open its stream only after Chromium's virtual time ran
    // out: then the browser runs again, up to three times, as a person would reload the page.
    let live = #"class="value changed" data-address="probe.level.out""#
    var dom = ""
    var level = 0
    for _ in 1...3 where !dom.contains(live) {
      let profile = try TemporaryDirectory("patchbay-web-chromium")
      let chrome = try ChildProcess(
        browser,
        [
          "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)",
          "--virtual-time-budget=5000", "--dump-dom", harness.base + "/",
        ])
      var sent = 0
      while chrome.isRunning, sent < 1200 {
        sent += 1
        level += 1
        try send("probe.level", String(level))
        Thread.sleep(forTimeInterval: 0.1)
      }
      try chrome.waitForExit(within: 120)
      dom = chrome.output
    }
    #expect(dom.contains(#"data-instance="probe""#), "\(dom)")
    #expect(dom.contains(#"class="state state-running""#), "\(dom)")
    #expect(dom.contains(#"class="badge up""#), "\(dom)")
    // A port row with the value from /api/ports, and one updated live over the event stream.
    #expect(dom.contains(#"data-address="probe.night_copy.out">true</td>"#), "\(dom)")
    #expect(dom.contains(live), "\(dom)")
    // The route graph: an arrow from probe.night.out, and the scene as a box.
    #expect(dom.contains(#"data-from="probe.night.out""#), "\(dom)")
    #expect(dom.contains(#"data-scene="good_night""#), "\(dom)")
    #expect(dom.contains("hub started"), "the log section: \(dom)")
    try harness.stop()
  }
}
