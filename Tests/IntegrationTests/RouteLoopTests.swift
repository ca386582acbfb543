import Foundation
import PatchbayTestSupport
import Testing

/// Loops (issue 29.2, 29.3): a loop the hub sees whole (scenes triggering scenes) is refused by
/// `check`; a loop through plugins that echo what they get is cut by the hop count each routed
/// value carries, logged once per route and counted in status; a two-way sync still settles.
@Suite(.serialized) struct RouteLoopTests {
  func probe(_ harness: HubUnderTest) -> HubTOML {
    HubTOML().probe(
      record: harness.path + "/probe.jsonl",
      ports: [.event("ticks", "integer"), .event("ping", "trigger"), .state("lamp", "bool")])
  }

  @Test func checkRefusesScenesThatTriggerThemselvesOrEachOther() throws {
    let harness = try HubUnderTest("patchbay-it", plugins: ["example-swift"])
    try harness.writeConfig(
      probe(harness)
        .table("scenes.s", ["probe.lamp": true])
        .table("scenes.a", ["probe.lamp": true])
        .table("scenes.b", ["probe.lamp": false])
        .routes(["scene.s.activated": "scene.s", "scene.a.activated": "scene.b"])
        .arrayTable("routes", ["from": "scene.b.activated", "to": ["probe.ping", "scene.a"]]))
    let check = try harness.check()
    print("patchbay check of the scene loops (exit \(check.status)):\n\(check.output)")
    #expect(check.status != 0)
    #expect(
      check.output.contains(
        "patchbay.toml: routes[1]: scene.s activates itself: scene.s.activated -> scene.s (routes[1])"),
      "\(check.output)")
    #expect(
      check.output.contains(
        "routes[3]: scenes activate each other in a loop: scene.a.activated -> scene.b (routes[2]),"
          + " then scene.b.activated -> scene.a (routes[3])"), "\(check.output)")
    // `run` refuses it as well, instead of crashing at the first activation.
    let run = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", harness.configPath])
    #expect(try run.waitForExit(within: 60) != 0)
    #expect(run.output.contains("scene.s activates itself"), "\(run.output)")
  }

  @Test func aLoopThroughAPluginIsCutCountedAndLoggedOnce() throws {
    let harness = try HubUnderTest("patchbay-it", plugins: ["example-swift"])
    try harness.writeConfig(
      probe(harness)
        .table("scenes.s", ["probe.lamp": true])
        .routes(["probe.ticks.out": "probe.ticks", "scene.s.activated": "probe.ping", "probe.ping.out": "scene.s"]))
    #expect(try harness.check().status == 0)
    try harness.start()
    try harness.waitUntilRunning("probe")
    func loopDrops(_ key: String) throws -> Int {
      let routes = try harness.status()["routes"] as? [[String: Any]] ?? []
      return routes.first { $0["key"] as? String == key }?["loopDrops"] as? Int ?? 0
    }
    // An event echoed back to its own input: the plugin receives it 16 times, then it is cut.
    try harness.send("probe.ticks", "7")
    try eventually("the echo loop is cut; log:\n\(harness.log)") { try loopDrops("routes[1]") == 1 }
    #expect(harness.lines("probe.jsonl").filter { $0.contains(#""port":"ticks""#) }.count == 16)
    // A scene activated through a plugin that answers its activation: cut the same way (by
    // the route from scene.s.activated, the 16th route the activation passes through).
    #expect(try harness.cli("scene", "s").status == 0)
    try eventually("the scene loop is cut; log:\n\(harness.log)") { try loopDrops("routes[2]") == 1 }
    // The hub survived both and still answers; each loop was logged once.
    let status = try harness.cli("status")
    print("patchbay status after the loops were cut:\n\(status.output)")
    #expect(status.status == 0)
    #expect(status.output.contains("loop drops 1"), "\(status.output)")
    let json = try harness.cli("status", "--json")
    #expect(json.output.contains(#""loopDrops""#), "\(json.output)")
    #expect(harness.log.components(separatedBy: "passed through 16 routes").count - 1 == 2, "\(harness.log)")
    try harness.send("probe.ticks", "8")
    try eventually("the second value is cut too") { try loopDrops("routes[1]") == 2 }
    #expect(harness.log.components(separatedBy: "passed through 16 routes").count - 1 == 2, "\(harness.log)")
    try harness.stop()
  }

  @Test func aSwitchMirroredBetweenTwoPluginsSettles() throws {
    let harness = try HubUnderTest("patchbay-it", plugins: ["example-swift"])
    func mirror(_ name: String) -> HubTOML {
      HubTOML().probe(
        name, record: harness.path + "/\(name).jsonl", ports: [.state("switch", "bool"), .event("press", "integer")])
    }
    // Both echo every input to their output (example-swift mirrors): the state settles because
    // an echoed state that changes nothing is not passed on again.
    try harness.writeConfig(
      mirror("left") + mirror("right")
        + HubTOML().routes(["left.switch.out": "right.switch", "right.switch.out": "left.switch"]))
    try harness.start()
    try harness.waitUntilRunning("left", "right")
    try harness.send("left.switch", "true")
    try eventually("right follows left") { harness.lines("right.jsonl").contains(#"{"port":"switch","value":true}"#) }
    try harness.send("right.switch", "false")
    try eventually("left follows right") { harness.lines("left.jsonl").last == #"{"port":"switch","value":false}"# }
    // Each side gets the echo of its own change once more, and that is all: a value still
    // circulating would have run far past three inputs each (thousands a second) by now.
    try eventually("right has the echo of false") { harness.lines("right.jsonl").count >= 3 }
    _ = try harness.status()
    #expect(
      harness.lines("left.jsonl") == [
        #"{"port":"switch","value":true}"#, #"{"port":"switch","value":true}"#, #"{"port":"switch","value":false}"#,
      ])
    #expect(
      harness.lines("right.jsonl") == [
        #"{"port":"switch","value":true}"#, #"{"port":"switch","value":false}"#, #"{"port":"switch","value":false}"#,
      ])
    let routes = try harness.status()["routes"] as? [[String: Any]] ?? []
    #expect(routes.allSatisfy { ($0["loopDrops"] as? Int ?? 0) == 0 }, "\(routes)")
    #expect(!harness.log.contains("passed through 16 routes"), "\(harness.log)")
    try harness.stop()
  }

  /// A C plugin that passes a bool on only when it changes: two of them mirroring each other
  /// over event ports settle because neither echoes what it already has.
  static let latchSource = #"""
    #include <patchbay/plugin.h>
    #include <stdlib.h>

    typedef struct latch {
      const pb_host_api *api;
      pb_host *host;
      uint32_t in_set, out_changed;
      int known, current;
    } latch;

    static pb_status latch_create(const pb_create_args *args, void **out, pb_error *error) {
      latch *self = calloc(1, sizeof(latch));
      self->api = args->api;
      self->host = args->host;
      pb_port set = {sizeof(pb_port), PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_BOOL, "set", "the new value"};
      pb_port changed = {sizeof(pb_port), PB_PORT_OUTPUT, PB_PORT_EVENT, PB_VALUE_BOOL, "changed", "when it changed"};
      if (self->api->add_port(self->host, &set, &self->in_set) != PB_OK ||
          self->api->add_port(self->host, &changed, &self->out_changed) != PB_OK) {
        (void)error;
        return PB_ERR_INTERNAL;
      }
      *out = self;
      return PB_OK;
    }
    static pb_status latch_start(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static pb_status latch_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)port; (void)error;
      latch *self = instance;
      int next = value->u.boolean ? 1 : 0;
      if (self->known && self->current == next) return PB_OK;
      self->known = 1;
      self->current = next;
      pb_value out = {0};
      out.size = sizeof(pb_value);
      out.type = PB_VALUE_BOOL;
      out.u.boolean = (uint32_t)next;
      return self->api->publish(self->host, self->out_changed, &out);
    }
    static pb_status latch_stop(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static void latch_destroy(void *instance) { free(instance); }
    static const pb_plugin_descriptor descriptor = {
      .size = sizeof(pb_plugin_descriptor), .abi_major = PB_ABI_MAJOR, .abi_minor = PB_ABI_MINOR,
      .name = "latch", .version = "1.0.0", .description = "passes a bool on when it changes",
      .create = latch_create, .start = latch_start, .receive = latch_receive, .stop = latch_stop,
      .destroy = latch_destroy,
    };
    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#

  @Test func twoPluginsThatPassOnlyChangesSettle() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "latch", source: Self.latchSource)
    try harness.writeConfig(
      HubTOML()
        .instance("left", plugin: "latch")
        .instance("right", plugin: "latch")
        .route(from: "left.changed", to: "right.set")
        .route(from: "right.changed", to: "left.set"))
    try harness.start()
    try harness.waitUntilRunning("left", "right")
    func inputs(_ name: String) throws -> Int { try harness.instanceStatus(name)?["messagesIn"] as? Int ?? -1 }
    // left takes true and passes it on; right takes it and passes it back; left has it: done.
    try harness.send("left.set", "true")
    try eventually("true went round once") { try inputs("left") >= 2 && inputs("right") >= 1 }
    try harness.send("right.set", "false")
    try eventually("false went round once") { try inputs("left") >= 3 && inputs("right") >= 3 }
    let routes = try harness.status()["routes"] as? [[String: Any]] ?? []
    #expect(try inputs("left") == 3 && inputs("right") == 3)
    #expect(routes.allSatisfy { ($0["loopDrops"] as? Int ?? 0) == 0 }, "\(routes)")
    #expect(!harness.log.contains("passed through 16 routes"), "\(harness.log)")
    try harness.stop()
  }
}
