import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The JSON API and /metrics of a real patchbay-web in front of a real hub.
@Suite(.serialized) struct WebAPITests {
  @Test func statusPortsRoutesSendScenesLogRestartAndMetrics() throws {
    let harness = try WebHarness()
    try harness.startHub()
    try harness.startWeb()
    let base = harness.base

    let status = try HTTPCall.get(base + "/api/status")
    #expect(status.status == 200, "\(status.body)")
    let instances = status.object["instances"] as? [[String: Any]] ?? []
    #expect(instances.first?["name"] as? String == "probe")
    #expect(instances.first?["plugin"] as? String == "example-swift")
    #expect(instances.first?["publishBusy"] as? Int == 0 && instances.first?["publishWaits"] as? Int == 0)
    #expect((status.object["hub"] as? [String: Any])?["protocolVersion"] as? Int == 2)
    try eventually("probe running") {
      try HTTPCall.get(base + "/api/status").body.contains(#""state":"running""#)
    }
    let firstPid = try #require(
      (try HTTPCall.get(base + "/api/status").object["instances"] as? [[String: Any]])?.first?["pid"] as? Int)

    // Send: the value arrives in the plugin, flows down the route, and /api/ports shows it.
    let csrf = try HTTPCall.csrf(base)
    #expect(!csrf.isEmpty)
    let sent = try HTTPCall.post(
      base + "/api/send", json: #"{"address":"probe.night","value":true}"#, ["-H", "X-Patchbay-CSRF: \(csrf)"])
    #expect(sent.status == 200, "\(sent.body)")
    try eventually("the probe received night = true and the route copied it") {
      let lines = harness.recorded()
      return lines.contains(#"{"port":"night","value":true}"#)
        && lines.contains(#"{"port":"night_copy","value":true}"#)
    }
    try eventually("/api/ports shows the copied value") {
      let ports = try HTTPCall.get(base + "/api/ports").object["ports"] as? [[String: Any]] ?? []
      return ports.contains { $0["address"] as? String == "probe.night_copy.out" && $0["value"] as? String == "true" }
    }
    let ports = try HTTPCall.get(base + "/api/ports").object["ports"] as? [[String: Any]] ?? []
    let lamp = try #require(ports.first { $0["address"] as? String == "probe.lamp" })
    #expect(lamp["type"] as? String == "light")
    #expect(lamp["kind"] as? String == "state")
    #expect(lamp["direction"] as? String == "input")

    // A value the hub refuses comes back with the hub's message.
    let wrong = try HTTPCall.post(
      base + "/api/send", json: #"{"address":"probe.level","value":"loud"}"#, ["-H", "X-Patchbay-CSRF: \(csrf)"])
    #expect(wrong.status == 422, "\(wrong.body)")
    #expect(wrong.body.contains("takes integer"), "\(wrong.body)")

    // Routes: the graph with transforms.
    let routes = try HTTPCall.get(base + "/api/routes").object["routes"] as? [[String: Any]] ?? []
    #expect(routes.count == 2)
    #expect(
      routes.contains {
        $0["from"] as? String == "probe.night.out" && $0["targets"] as? [String] == ["probe.night_copy"]
      })
    #expect(
      routes.contains { $0["from"] as? String == "probe.press.out" && $0["transforms"] as? [String] == ["filter"] })

    // Scenes: listed, activated, counted; the scene's value reaches the probe.
    let activated = try HTTPCall.run(
      base + "/api/scenes/good_night/activate", ["-X", "POST", "-H", "X-Patchbay-CSRF: \(csrf)"])
    #expect(activated.status == 200, "\(activated.body)")
    try eventually("the scene set level 7") { harness.recorded().contains(#"{"port":"level","value":7}"#) }
    let scenes = try HTTPCall.get(base + "/api/scenes").object["scenes"] as? [[String: Any]] ?? []
    #expect(scenes.first?["name"] as? String == "good_night")
    #expect(scenes.first?["activations"] as? Int == 1)
    let unknownScene = try HTTPCall.run(
      base + "/api/scenes/good_nite/activate", ["-X", "POST", "-H", "X-Patchbay-CSRF: \(csrf)"])
    #expect(unknownScene.status == 422)
    #expect(unknownScene.body.contains("did you mean 'good_night'"), "\(unknownScene.body)")

    // Log: the hub's recent lines, filtered by instance and level.
    let hubLog = try HTTPCall.get(base + "/api/log?instance=hub").object["lines"] as? [[String: Any]] ?? []
    #expect(hubLog.contains { ($0["message"] as? String)?.contains("hub started") == true }, "\(hubLog)")
    #expect(hubLog.allSatisfy { $0["label"] as? String == "hub" })
    let notices = try HTTPCall.get(base + "/api/log?level=notice").object["lines"] as? [[String: Any]] ?? []
    #expect(notices.contains { ($0["message"] as? String)?.contains("scene good_night") == true }, "\(notices)")
    #expect(notices.allSatisfy { ["notice", "warning", "error", "critical"].contains($0["level"] as? String ?? "") })

    // Restart: a new process (a restart by hand resets the supervisor's count, as `patchbay restart`).
    let restarted = try HTTPCall.post(
      base + "/api/restart", json: #"{"instance":"probe"}"#, ["-H", "X-Patchbay-CSRF: \(csrf)"])
    #expect(restarted.status == 200, "\(restarted.body)")
    try eventually("probe restarted with a new pid", within: 60) {
      let probe = (try HTTPCall.get(base + "/api/status").object["instances"] as? [[String: Any]])?.first ?? [:]
      return probe["state"] as? String == "running"
        && (probe["pid"] as? Int).map { $0 != firstPid } == true
    }

    // Metrics in Prometheus' text format.
    let metrics = try HTTPCall.get(base + "/metrics")
    #expect(metrics.status == 200)
    for expected in [
      "# TYPE patchbay_instance_up gauge", #"patchbay_instance_up{instance="probe",plugin="example-swift"} 1"#,
      "# TYPE patchbay_instance_restarts_total counter",
      #"patchbay_instance_restarts_total{instance="probe",plugin="example-swift"} "#,
      "# TYPE patchbay_route_drops_total counter", #"patchbay_scene_activations_total{scene="good_night"} 1"#,
      "patchbay_hub_up 1", "# TYPE patchbay_hub_uptime_seconds gauge", "patchbay_instance_queue_depth{",
      "patchbay_instance_backpressure_waits_total{", "patchbay_instance_refusals_total{",
      "patchbay_instance_messages_in_total{", "patchbay_instance_drops_total{",
      "patchbay_instance_publish_busy_total{", "patchbay_instance_publish_waits_total{",
    ] {
      #expect(metrics.body.contains(expected), "missing \(expected) in:\n\(metrics.body)")
    }
    // Every sample line is NAME{LABELS} VALUE or NAME VALUE.
    for line in metrics.body.split(separator: "\n") where !line.hasPrefix("#") {
      #expect(line.range(of: #"^[a-z_]+(\{[^}]*\})? [0-9.eE+-]+$"#, options: .regularExpression) != nil, "\(line)")
    }
    try harness.stop()
  }

  /// The config's `room` reaches /api/status (and a reload that only moves a room restarts
  /// nothing); a state input shows the value the hub gave it, not nothing.
  @Test func roomsAndStateInputValuesAreServed() throws {
    let harness = try WebHarness()
    let hall = HubTOML().probe("hall", ports: [.state("lamp_on", "bool")], ["room": "Hall"])
    try harness.startHub(extra: hall)
    try harness.startWeb()
    let base = harness.base
    func instances() throws -> [String: [String: Any]] {
      let list = try HTTPCall.get(base + "/api/status").object["instances"] as? [[String: Any]] ?? []
      return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0) })
    }
    try eventually("both running") { try instances().values.allSatisfy { $0["state"] as? String == "running" } }
    #expect(try instances()["hall"]?["room"] as? String == "Hall")
    #expect(try instances()["probe"]?["room"] == nil)

    // probe.night_copy is an input, fed by the route from probe.night.out: the hub gave it true.
    let csrf = try HTTPCall.csrf(base)
    _ = try HTTPCall.post(
      base + "/api/send", json: #"{"address":"probe.night","value":true}"#, ["-H", "X-Patchbay-CSRF: \(csrf)"])
    try eventually("/api/ports shows what the hub gave the input probe.night_copy") {
      let ports = try HTTPCall.get(base + "/api/ports").object["ports"] as? [[String: Any]] ?? []
      return ports.contains { $0["address"] as? String == "probe.night_copy" && $0["value"] as? String == "true" }
    }

    // Another room: a reload applies it, the instance keeps its process.
    let pid = try #require(try instances()["hall"]?["pid"] as? Int)
    let config = try String(contentsOfFile: harness.configPath, encoding: .utf8)
    try harness.directory.write(
      "patchbay.toml", config.replacingOccurrences(of: #"room = "Hall""#, with: #"room = "Kitchen""#))
    let reload = try runProgram(BuildProducts.executable("patchbay"), ["reload", "--config", harness.configPath])
    #expect(reload.status == 0, "\(reload.output)")
    try eventually("the new room in /api/status") { try instances()["hall"]?["room"] as? String == "Kitchen" }
    #expect(try instances()["hall"]?["pid"] as? Int == pid)
    try harness.stop()
  }

  /// patchbay-web runs without the hub, says so (503, patchbay_hub_up 0), and finds the hub when
  /// it comes; the hub does not depend on patchbay-web at all.
  @Test func hubDownIsReportedAndFoundAgain() throws {
    let harness = try WebHarness()
    try harness.startWeb()
    let down = try HTTPCall.get(harness.base + "/api/status")
    #expect(down.status == 503, "\(down.body)")
    #expect(down.body.contains("hub unreachable"))
    #expect(try HTTPCall.get(harness.base + "/metrics").body.contains("patchbay_hub_up 0"))
    try harness.startHub()
    try eventually("patchbay-web reaches the hub") { try HTTPCall.get(harness.base + "/api/status").status == 200 }
    // A dead web server leaves the hub running.
    harness.web?.signal(SIGKILL)
    try harness.web?.waitForExit(within: 30)
    #expect(harness.hub?.isRunning == true)
    let status = try runProgram(
      BuildProducts.executable("patchbay"), ["status", "--config", harness.configPath])
    #expect(status.status == 0, "\(status.output)")
    try harness.stop()
  }

  /// SIGTERM ends patchbay-web promptly even while a browser follows the live stream (the HTTP
  /// server's graceful shutdown waits for open responses, and a stream never ends by itself).
  @Test func shutdownEndsOpenEventStreams() throws {
    let harness = try WebHarness()
    try harness.startWeb()
    let stream = try ChildProcess("/usr/bin/env", ["curl", "-sN", "--max-time", "60", harness.base + "/api/events"])
    try stream.waitForLine(containing: "event: hub", within: 30)
    let web = try #require(harness.web)
    try web.terminate(within: 15)
    try stream.waitForExit(within: 30)
  }
}
