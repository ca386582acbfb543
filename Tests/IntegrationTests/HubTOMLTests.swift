import PatchbayTestSupport
import PatchbayValues
import Testing

/// The test support's config builder writes the TOML a hand-written set-up had (inline tables,
/// keys that need quotes, routes, probes), and ProbeRecord reads back what a probe records.
@Suite struct HubTOMLTests {
  @Test func writesInstancesProbesScenesAndRoutesAsTOML() {
    let config =
      HubTOML()
      .instance("lights", plugin: "hue", ["rename": ["2": "desk"], "poll_interval_s": 0.5])
      .accessory("Desk lamp", service: "lightbulb", ["characteristics": ["brightness"]])
      .probe(record: "/tmp/p.jsonl", ports: [.event("press", "button"), .state("night", "bool")])
      .probe("mirror", ports: [HubTOML.Port("x", "integer", kind: nil)], ["sandbox": ["enabled": false]])
      .table("scenes.good_night", ["lights.hall.light": ["on": false], "probe.night": true])
      .keys([:])
      .routes(["probe.press.out": "scene.good_night", "scene.good_night.activated": "probe.night"])
      .route(from: "a.b", to: "c.d", ["filter": ["click"], "when": "probe.lamp.out.on == true"])
      + HubTOML().raw("# by hand")
    #expect(
      config.toml == """
        [instances.lights]
        plugin = "hue"
        rename = { 2 = "desk" }
        poll_interval_s = 0.5

        [[instances.homekit.accessories]]
        name = "Desk lamp"
        service = "lightbulb"
        characteristics = ["brightness"]

        [instances.probe]
        plugin = "example-swift"
        record = "/tmp/p.jsonl"
        ports = [{ name = "press", type = "button", kind = "event" }, { name = "night", type = "bool", kind = "state" }]

        [instances.mirror]
        plugin = "example-swift"
        ports = [{ name = "x", type = "integer" }]
        sandbox = { enabled = false }

        [scenes.good_night]
        "lights.hall.light" = { on = false }
        "probe.night" = true

        [[routes]]
        from = "probe.press.out"
        to = "scene.good_night"

        [[routes]]
        from = "scene.good_night.activated"
        to = "probe.night"

        [[routes]]
        from = "a.b"
        to = "c.d"
        filter = ["click"]
        when = "probe.lamp.out.on == true"

        # by hand

        """)
  }

  @Test func probeRecordReadsValuesByPort() throws {
    let directory = try TemporaryDirectory("patchbay-probe-record")
    let path = try directory.write(
      "probe.jsonl",
      """
      {"port":"press","value":{"action":"click","queued":false}}
      {"port":"level","value":7}
      {"port":"press","value":{"action":"hold","queued":true}}

      """)
    let record = ProbeRecord(path: path)
    #expect(record.lines.count == 3)
    #expect(record.texts("level") == ["7"])
    #expect(record.values("level") == [.integer(7)])
    #expect(record.actions("press") == ["click", "hold"])
    #expect(ProbeRecord(path: directory.path + "/absent.jsonl").lines.isEmpty)
  }
}
