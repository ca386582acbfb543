import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The HomeKit panel (the setup QR code and code while unpaired, the pairings) and the sandbox
/// view of a real patchbay-web in front of a real hub running the homekit plugin, paired by a
/// real controller (aiohomekit): through the JSON API, then clicked in headless Chromium.
@Suite(.serialized) struct WebHomeKitTests {
  static let quietZone = 4

  /// The dark modules of the SVG's `<rect x= y= width="1" height="1"/>` elements.
  static func modules(_ svg: String) -> Set<[Int]> {
    let pattern = try! NSRegularExpression(pattern: #"<rect x="(\d+)" y="(\d+)" width="1" height="1"/>"#)
    let range = NSRange(svg.startIndex..., in: svg)
    return Set(
      pattern.matches(in: svg, range: range).map { match in
        (1...2).map { Int(svg[Range(match.range(at: $0), in: svg)!])! }
      })
  }

  /// A QR code's finder pattern at module (x, y): a dark 7x7 ring, a light ring, a dark 3x3 core.
  static func hasFinder(_ dark: Set<[Int]>, x: Int, y: Int) -> Bool {
    (0..<7).allSatisfy { dy in
      (0..<7).allSatisfy { dx in
        let ring = max(abs(dx - 3), abs(dy - 3))
        return dark.contains([x + dx, y + dy]) == (ring != 2)
      }
    }
  }

  func bridge(from base: String) throws -> [String: Any] {
    let bridges = try HTTPCall.get(base + "/api/homekit").object["bridges"] as? [[String: Any]] ?? []
    return bridges.first { $0["instance"] as? String == HomeKitBridgeUnderTest.instance } ?? [:]
  }

  func sandboxFromCLI(_ harness: WebHarness) throws -> [[String: Any]] {
    let result = try runProgram(
      BuildProducts.executable("patchbay"), ["status", "--sandbox", "--json", "--config", harness.configPath])
    return try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] ?? []
  }

  @Test func homeKitPanelAndSandboxThroughTheAPI() throws {
    let harness = try WebHarness()
    let bridge = try HomeKitBridgeUnderTest(harness)
    try harness.startWeb()
    let base = harness.base
    let code = try bridge.setupCode()

    // Unpaired: the payload, its QR code as SVG modules, the code it carries, no pairings.
    var panel: [String: Any] = [:]
    try eventually("the bridge's setup payload in /api/homekit: \(panel)") {
      panel = try self.bridge(from: base)
      return panel["setupPayload"] != nil
    }
    #expect(panel["state"] as? String == "running")
    #expect(panel["setupCode"] as? String == code)
    #expect((panel["setupPayload"] as? String)?.hasPrefix("X-HM://") == true)
    #expect(!(panel["discovery"] as? String ?? "").isEmpty, "\(panel)")
    #expect((panel["pairings"] as? [Any])?.isEmpty == true)
    let svg = try #require(panel["qrSVG"] as? String)
    #expect(svg.hasPrefix("<svg"))
    let dark = Self.modules(svg)
    // Version 1 (21 modules a side) holds the 20 alphanumeric characters at level M; any is 21 + 4k.
    let width = (dark.map { $0.max()! }.max() ?? 0) - Self.quietZone + 1
    #expect(width >= 21 && (width - 21) % 4 == 0, "\(width) modules a side")
    let q = Self.quietZone
    #expect(Self.hasFinder(dark, x: q, y: q), "no finder pattern top left")
    #expect(Self.hasFinder(dark, x: q + width - 7, y: q), "no finder pattern top right")
    #expect(Self.hasFinder(dark, x: q, y: q + width - 7), "no finder pattern bottom left")
    #expect(!Self.hasFinder(dark, x: q + width - 7, y: q + width - 7), "a finder pattern bottom right")

    // Paired: no payload, no QR, the controller listed as admin.
    let (controller, id) = try bridge.pair(code: code)
    try eventually("the pairing in /api/homekit: \(panel)") {
      panel = try self.bridge(from: base)
      return (panel["pairings"] as? [[String: Any]])?.isEmpty == false
    }
    #expect(panel["setupPayload"] == nil && panel["qrSVG"] == nil && panel["setupCode"] == nil, "\(panel)")
    let pairings = panel["pairings"] as? [[String: Any]] ?? []
    #expect(pairings.count == 1)
    #expect(pairings.first?["id"] as? String == id)
    #expect(pairings.first?["admin"] as? Bool == true)
    // A second, regular controller (added by the admin through /pairings) is listed as not admin.
    let secondID = try #require(try controller.send(["cmd": "add_controller"])["iOSPairingId"]?.stringValue)
    try eventually("the second pairing in /api/homekit: \(panel)") {
      panel = try self.bridge(from: base)
      return (panel["pairings"] as? [[String: Any]])?.count == 2
    }
    let listed = (panel["pairings"] as? [[String: Any]] ?? []).map { "\($0["id"]!) \($0["admin"]!)" }
    #expect(listed == ["\(id) 1", "\(secondID) 0"], "\(listed)")

    // The sandbox: the entries `patchbay status --sandbox --json` gives, for every instance.
    var api: [[String: Any]] = []
    var cli: [[String: Any]] = []
    try eventually("/api/sandbox equals status --sandbox --json:\n\(api)\n\(cli)") {
      api = try HTTPCall.get(base + "/api/sandbox").object["instances"] as? [[String: Any]] ?? []
      cli = try sandboxFromCLI(harness)
      return !api.isEmpty && (api as NSArray).isEqual(cli as NSArray)
    }
    #expect(Set(api.compactMap { $0["instance"] as? String }) == ["probe", HomeKitBridgeUnderTest.instance])
    let homekit = try #require(api.first { $0["instance"] as? String == HomeKitBridgeUnderTest.instance })
    let policy = (homekit["sandbox"] as? [String: Any])?["policy"] as? [String: Any] ?? [:]
    #expect((policy["bind"] as? [Int])?.contains(bridge.reservation.port) == true, "\(policy)")
    #expect(
      (policy["write"] as? [String])?.contains { $0.hasSuffix("/instances/\(HomeKitBridgeUnderTest.instance)") }
        == true, "\(policy)")
    try harness.stop()
  }

  @Test func homeKitPanelAndSandboxInTheBrowser() throws {
    let harness = try WebHarness()
    let bridge = try HomeKitBridgeUnderTest(harness)
    try harness.startWeb()
    let code = try bridge.setupCode()
    let screenshots = WebScript.screenshots(harness.directory.path)
    func browse(_ phase: String, _ extra: [String]) throws {
      try WebScript.runSteps(
        "homekit_sandbox", base: harness.base, config: harness.configPath,
        ["--phase", phase, "--instance", HomeKitBridgeUnderTest.instance, "--screenshots", screenshots] + extra,
        steps: "homekit_sandbox \(phase)")
    }
    try browse("unpaired", ["--setup-code", code])
    let (controller, id) = try bridge.pair(code: code)
    try withExtendedLifetime(controller) { try browse("paired", ["--pairing-id", id]) }
    for name in ["web-homekit.png", "web-homekit-paired.png", "web-sandbox.png"] {
      let png = try #require(FileManager.default.contents(atPath: screenshots + "/" + name), "no \(name)")
      #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(name) is no PNG")
    }
    try harness.stop()
  }
}
