import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// /metrics as Prometheus reads it: Scripts/metrics_match_status.py parses it with
/// prometheus_client's text parser and holds up, restarts, queue depth and drops against
/// `patchbay status --json`, once the hub has something other than zeros to report.
@Suite(.serialized) struct WebMetricsTests {
  /// A temporary instance that stays down once killed, with a small queue: events sent to it
  /// wait in the queue up to its bound and the rest are dropped and counted.
  static let sleeper = HubTOML().probe(
    "sleeper", ports: [.event("press", "button")], ["restart": "temporary", "queue_size": 3])

  /// Under the shipped units patchbay-web cannot see the hub's /proc entry (each unit has a user
  /// namespace of its own). Here it runs in a pid namespace with a /proc of its own, where the
  /// hub's pid does not exist: the memory figures still come, from the hub's `status`.
  @Test(.enabled(if: getuid() == 0, "unshare --pid needs root"))
  func theMemoryFiguresComeFromTheHubNotFromProc() throws {
    let harness = try WebHarness()
    try harness.startHub()
    try harness.startWeb(launcher: ["/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "--kill-child"])
    try eventually("the probe runs", within: 60) {
      try HTTPCall.get(harness.base + "/metrics").body.contains(#"patchbay_instance_up{instance="probe""#)
    }
    let metrics = try HTTPCall.get(harness.base + "/metrics").body
    let lines = metrics.split(separator: "\n")
    let hub = lines.first { $0.hasPrefix("patchbay_hub_resident_memory_bytes ") }
    let probe = lines.first { $0.hasPrefix(#"patchbay_instance_resident_memory_bytes{instance="probe""#) }
    #expect(hub != nil && probe != nil, "\(metrics)")
    // Plausible figures: more than a megabyte each.
    for line in [hub, probe].compactMap({ $0 }) {
      #expect((Double(line.split(separator: " ").last ?? "") ?? 0) > 1_000_000, "\(line)")
    }
    // The same figures are in `patchbay status --json`.
    let status = try runProgram(
      BuildProducts.executable("patchbay"), ["status", "--json", "--config", harness.configPath])
    let json = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
    #expect((json?["residentBytes"] as? Int ?? 0) > 1_000_000, "\(status.output.prefix(400))")
    let instances = json?["instances"] as? [[String: Any]] ?? []
    #expect(instances.allSatisfy { ($0["residentBytes"] as? Int ?? 0) > 1_000_000 }, "\(status.output.prefix(800))")
    // unshare passes no SIGTERM on; its --kill-child ends patchbay-web with it.
    harness.web?.signal(SIGKILL)
    harness.web = nil
    try harness.stop()
  }

  @Test func theParsedMetricsMatchPatchbayStatus() throws {
    let harness = try WebHarness()
    try harness.startHub(extra: Self.sleeper)
    try harness.startWeb()
    let patchbay = BuildProducts.executable("patchbay")
    func status() throws -> [String: [String: Any]] {
      let result = try runProgram(patchbay, ["status", "--json", "--config", harness.configPath])
      let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
      let instances = json?["instances"] as? [[String: Any]] ?? []
      return Dictionary(uniqueKeysWithValues: instances.map { ($0["name"] as? String ?? "", $0) })
    }
    func pid(_ name: String) throws -> Int32? { (try status()[name]?["pid"] as? Int).map(Int32.init) }
    try eventually("both instances run", within: 60) { try pid("probe") != nil && pid("sleeper") != nil }

    // The probe crashes and is restarted (restarts 1); the sleeper crashes and stays down.
    let probe = try #require(try pid("probe"))
    kill(probe, SIGKILL)
    try eventually("the probe restarted", within: 60) {
      let now = try status()["probe"] ?? [:]
      return now["restarts"] as? Int == 1 && now["phase"] as? String == "running"
    }
    kill(try #require(try pid("sleeper")), SIGKILL)
    try eventually("the sleeper is down", within: 60) { try status()["sleeper"]?["phase"] as? String != "running" }
    // Three fit in the queue; `patchbay send` reports the two that do not (and the hub counts them).
    for index in 0..<5 {
      let sent = try runProgram(patchbay, ["send", "--config", harness.configPath, "sleeper.press", "click"])
      #expect((sent.status == 0) == (index < 3), "send \(index + 1): \(sent.status) \(sent.output)")
    }
    try eventually("five events held or dropped for the sleeper", within: 60) {
      let now = try status()["sleeper"] ?? [:]
      return (now["queueDepth"] as? Int ?? 0) + (now["drops"] as? Int ?? 0) == 5
    }
    let sleeper = try status()["sleeper"] ?? [:]
    #expect(sleeper["queueDepth"] as? Int == 3, "\(sleeper)")
    #expect(sleeper["drops"] as? Int == 2, "\(sleeper)")

    let result = try runProgram(
      WebScript.python,
      [
        WebScript.folder.appendingPathComponent("metrics_match_status.py").path, "--base", harness.base,
        "--patchbay", patchbay, "--config", harness.configPath,
      ])
    print(result.output)
    #expect(result.status == 0, "\(result.output)")
    // The numbers compared include the ones made above, not only zeros.
    for line in [
      #"patchbay_instance_restarts{instance="probe",plugin="example-swift"} metrics=1.0 status=1.0"#,
      #"patchbay_instance_up{instance="sleeper",plugin="example-swift"} metrics=0.0 status=0.0"#,
      #"patchbay_instance_queue_depth{instance="sleeper",plugin="example-swift"} metrics=3.0 status=3.0"#,
      #"patchbay_instance_drops{instance="sleeper",plugin="example-swift"} metrics=2.0 status=2.0"#,
    ] {
      #expect(result.output.contains(line), "missing \(line)")
    }
    try harness.stop()
  }
}
