import Foundation
import PatchbayTestSupport
import Testing

/// An event route between healthy instances never drops: a producer that floods a consumer
/// with a small queue is slowed down (its publishes wait) and every event arrives, in order.
/// `status` shows the hub's waits (`backPressureWaits`) and its plugin host's back-pressure
/// apart: publishes answered PB_ERR_BUSY (`publishBusy`) and waits for room (`publishWaits`).
@Suite(.serialized) struct BackPressureTests {
  /// The Swift kit's `publish` (which declares PB_PLUGIN_PUBLISH_BUSY) is told BUSY by its host
  /// and waits for room itself; `patchbay status` shows both.
  @Test func aFloodIntoASmallQueueArrivesWholeAndInOrder() throws {
    let count = 5_000
    let (harness, source) = try floodIntoSlowSink(count: count) { _ in
      (plugin: "fault", command: ("source.command", "flood \(count)"))
    }
    #expect((source?["backPressureWaits"] as? Int ?? 0) > 0, "\(String(describing: source))")
    // The producer was slowed, not killed: its answers waited behind its own publishes.
    #expect(source?["restarts"] as? Int == 0)
    try hostPressure(of: harness) { $0.busy > 0 && $0.waits > 0 }
    // A deliberate stop reports the last counts, so after a restart they are final.
    try restartSource(of: harness)
    let final = try #require(Self.hostPressure(try harness.instanceStatus("source")))
    #expect(final.waits <= final.busy, "one wait at most per BUSY answer: \(final)")
    let table = try harness.cli("status")
    #expect(table.status == 0)
    let header = try #require(table.output.split(separator: "\n").first { $0.hasPrefix("INSTANCE") })
    #expect(header.contains(" WAITS ") && header.contains(" BUSY ") && header.contains(" HOSTWAITS "), "\(header)")
    let row = try #require(table.output.split(separator: "\n").first { $0.hasPrefix("source ") })
    let cells = row.split(separator: " ")
    let columns = header.split(separator: " ")
    let busyCell = try #require(columns.firstIndex(of: "BUSY"))
    #expect(cells[busyCell] == "\(final.busy)", "\(table.output)")
    #expect(cells[busyCell + 1] == "\(final.waits)", "\(table.output)")
    try harness.stop()
  }

  /// A consumer that takes longer for a socketful of inputs than its hang timeout: its
  /// heartbeats wait behind the inputs the hub keeps its socket full of, but it finishes inputs
  /// all the while, so it is slow, not hung (the hub once killed it, and lost the queued events).
  @Test func aConsumerSlowerPerSocketfulThanItsHangTimeoutIsNotKilled() throws {
    let count = 1_000
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["fault"])
    try harness.writeConfig(
      HubTOML()
        .instance("source", plugin: "fault")
        .instance(
          "sink", plugin: "fault",
          [
            "record": "\(harness.directory.path)/sink.txt", "queue_size": 16, "hang_timeout_ms": 1000,
            "heartbeat_interval_ms": 200,
          ]
        )
        .route(from: "source.flood", to: "sink.events"))
    try harness.start()
    #expect(try harness.cli("send", "sink.command", "slow 10").status == 0)
    #expect(try harness.cli("send", "source.command", "flood \(count)").status == 0)
    try eventually(
      "every event recorded: \(harness.lines("sink.txt").count) of \(count); sink "
        + "\(String(describing: try? harness.instanceStatus("sink")))", within: 600
    ) { harness.lines("sink.txt").count >= count }
    #expect(harness.lines("sink.txt") == (0..<count).map(String.init))
    let sink = try harness.instanceStatus("sink")
    #expect(sink?["restarts"] as? Int == 0, "\(String(describing: sink))")
    #expect(sink?["drops"] as? Int == 0, "\(String(describing: sink))")
    #expect(!harness.process!.lines.contains { $0.contains("not answering heartbeats") }, "\(harness.process!.output)")
    try harness.stop()
  }

  // ABI 1.1: a plugin that declares PB_PLUGIN_PUBLISH_BUSY is told PB_ERR_BUSY once its host
  // has buffered PB_PUBLISH_BUFFER_EVENTS events, publishes the value again, and loses nothing.

  @Test func aSwiftProducerToldBusyRetriesAndEveryEventArrivesInOrder() throws {
    let count = 5_000
    let (harness, source) = try floodIntoSlowSink(count: count) { _ in
      (plugin: "fault", command: ("source.command", "flood-try \(count)"))
    }
    try harness.process!.waitForLine(containing: "flood-try: \(count) published")
    let line = try #require(harness.process!.lines.first { $0.contains("flood-try: \(count) published") })
    let busy = try #require(Self.number(before: " times busy", in: line))
    #expect(busy > 0, "\(line)")
    #expect((source?["backPressureWaits"] as? Int ?? 0) > 0, "\(String(describing: source))")
    // The host counted exactly the BUSY answers the plugin saw.
    try hostPressure(of: harness) { $0.busy == busy }
    try harness.stop()
  }

  @Test func aCProducerOfABI11ToldBusyRetriesAndEveryEventArrivesInOrder() throws {
    let count = 5_000
    let (harness, _) = try floodIntoSlowSink(count: count) { harness in
      try harness.compileCPlugin(name: "flooder", source: Self.flooderSource, defines: ["-DFLOOD_BUSY"])
      return (plugin: "flooder", command: ("source.count", "\(count)"))
    }
    try harness.process!.waitForLine(containing: "flooded \(count):")
    let line = try #require(harness.process!.lines.first { $0.contains("flooded \(count):") })
    let busy = try #require(Self.number(before: " busy", in: line))
    #expect(busy > 0, "\(line)")
    #expect(line.contains(" 0 failed"), "\(line)")
    // Exactly the BUSY answers the plugin saw; it waited for room after them (not always: the
    // room may come between the answer and its wait_for_room call).
    let reported = try hostPressure(of: harness) { $0.busy == busy && $0.waits > 0 }
    #expect(reported.waits <= busy, "\(reported)")
    // The counts span the instance's processes: a restart keeps them.
    try restartSource(of: harness)
    let kept = try #require(Self.hostPressure(try harness.instanceStatus("source")))
    #expect(kept.busy == busy && kept.waits >= reported.waits, "\(kept)")
    try harness.stop()
  }

  /// Built against the frozen 1.0 header: it cannot know PB_ERR_BUSY, so its publish waits.
  @Test func aCProducerOfABI10IsSlowedAndLosesNothing() throws {
    let count = 5_000
    let (harness, source) = try floodIntoSlowSink(count: count) { harness in
      try harness.compileCPlugin(
        name: "flooder", source: Self.flooderSource,
        includeDirectory: HubUnderTest.repositoryRoot + "/Tests/Fixtures/abi-1.0")
      return (plugin: "flooder", command: ("source.count", "\(count)"))
    }
    try harness.process!.waitForLine(containing: "flooded \(count):")
    let line = try #require(harness.process!.lines.first { $0.contains("flooded \(count):") })
    #expect(line.contains("0 busy, 0 failed"), "\(line)")
    #expect((source?["backPressureWaits"] as? Int ?? 0) > 0, "\(String(describing: source))")
    #expect(source?["restarts"] as? Int == 0)
    // Its host never answers BUSY; its publish blocked for room instead.
    let reported = try hostPressure(of: harness) { $0.waits > 0 }
    #expect(reported.busy == 0, "\(reported)")
    try harness.stop()
  }

  /// Runs `source` (`prepare` builds it when it is not `fault`) into a `fault` sink with a queue of 16 that takes 1 ms
  /// per event, floods it, and checks that every event arrived once, in order, and none was
  /// dropped. Returns the running hub and the source's status.
  private func floodIntoSlowSink(
    count: Int, _ prepare: (HubUnderTest) throws -> (plugin: String, command: (String, String))
  ) throws -> (HubUnderTest, [String: Any]?) {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["fault"])
    let (plugin, command) = try prepare(harness)
    try harness.writeConfig(
      HubTOML()
        .instance("source", plugin: "\(plugin)", ["hang_timeout_ms": 3000, "heartbeat_interval_ms": 500])
        .instance("sink", plugin: "fault", ["record": "\(harness.directory.path)/sink.txt", "queue_size": 16])
        .route(from: "source.flood", to: "sink.events"))
    try harness.start()
    #expect(try harness.cli("send", "sink.command", "slow 1").status == 0)
    #expect(try harness.cli("send", command.0, command.1).status == 0)
    try eventually(
      "every event recorded: \(harness.lines("sink.txt").count) of \(count); source "
        + "\(String(describing: try? harness.instanceStatus("source"))); sink "
        + "\(String(describing: try? harness.instanceStatus("sink")))", within: 600
    ) { harness.lines("sink.txt").count >= count }
    #expect(harness.lines("sink.txt") == (0..<count).map(String.init))
    #expect(try harness.instanceStatus("sink")?["drops"] as? Int == 0)
    #expect(!harness.process!.lines.contains { $0.contains("not answering heartbeats") }, "\(harness.process!.output)")
    return (harness, try harness.instanceStatus("source"))
  }

  /// The source's host-side counts (`publishBusy`, `publishWaits`) once `reached` holds: the
  /// host reports them about once a second.
  @discardableResult
  private func hostPressure(of harness: HubUnderTest, _ reached: (HostPressure) -> Bool) throws -> HostPressure {
    var last: HostPressure?
    try eventually("the source's host back-pressure counts; last \(String(describing: last))", within: 60) {
      last = Self.hostPressure(try harness.instanceStatus("source"))
      return last.map(reached) ?? false
    }
    return try #require(last)
  }

  /// `patchbay restart source`, until its new process runs.
  private func restartSource(of harness: HubUnderTest) throws {
    let pid = try #require(try harness.pid(of: "source"))
    #expect(try harness.cli("restart", "source").status == 0)
    try eventually("source restarted", within: 60) { try harness.pid(of: "source").map { $0 != pid } ?? false }
  }

  struct HostPressure: Equatable {
    var busy: Int
    var waits: Int
  }

  private static func hostPressure(_ status: [String: Any]?) -> HostPressure? {
    guard let busy = status?["publishBusy"] as? Int, let waits = status?["publishWaits"] as? Int else { return nil }
    return HostPressure(busy: busy, waits: waits)
  }

  /// The integer that ends just before `suffix` in `line`.
  private static func number(before suffix: String, in line: String) -> Int? {
    guard let end = line.range(of: suffix)?.lowerBound else { return nil }
    return Int(String(line[..<end].reversed().prefix { $0.isNumber }.reversed()))
  }

  /// A C producer: input `count` (event, integer N) publishes 0..N-1 on `flood` (event,
  /// integer) from the plugin context, then logs how often publish() said PB_ERR_BUSY. Built
  /// with -DFLOOD_BUSY (ABI 1.1 header only) it declares PB_PLUGIN_PUBLISH_BUSY and, on
  /// PB_ERR_BUSY, waits for room and publishes the same value again.
  static let flooderSource = #"""
    #include <patchbay/plugin.h>
    #include <stdio.h>
    #include <stdlib.h>

    typedef struct flooder {
      const pb_host_api *api;
      pb_host *host;
      uint32_t in_count, out_flood;
    } flooder;

    static pb_status flooder_create(const pb_create_args *args, void **instance_out, pb_error *error) {
      flooder *self = calloc(1, sizeof(flooder));
      if (!self) return PB_ERR_NO_MEMORY;
      self->api = args->api;
      self->host = args->host;
      pb_port in = {sizeof(pb_port), PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_INTEGER, "count", "publish 0..count-1"};
      pb_port out = {sizeof(pb_port), PB_PORT_OUTPUT, PB_PORT_EVENT, PB_VALUE_INTEGER, "flood", NULL};
      if (self->api->add_port(self->host, &in, &self->in_count) ||
          self->api->add_port(self->host, &out, &self->out_flood)) {
        snprintf(error->message, PB_ERROR_CAPACITY, "the hub refused a port");
        free(self);
        return PB_ERR_INTERNAL;
      }
      *instance_out = self;
      return PB_OK;
    }

    static pb_status flooder_start(void *instance, pb_error *error) {
      (void)instance;
      (void)error;
      return PB_OK;
    }

    static pb_status flooder_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      flooder *self = instance;
      (void)port;
      (void)error;
      unsigned long long busy = 0, failed = 0;
      for (int64_t n = 0; n < value->u.integer; n++) {
        pb_value out = {0};
        out.size = sizeof(pb_value);
        out.type = PB_VALUE_INTEGER;
        out.u.integer = n;
        pb_status status;
        while ((status = self->api->publish(self->host, self->out_flood, &out)) != PB_OK) {
    #ifdef FLOOD_BUSY
          if (status == PB_ERR_BUSY && self->api->size >= offsetof(pb_host_api, wait_for_room) + sizeof(void *)) {
            busy++;
            self->api->wait_for_room(self->host, UINT64_MAX);
            continue;
          }
    #endif
          failed++;
          break;
        }
      }
      char line[128];
      snprintf(line, sizeof line, "flooded %lld: %llu busy, %llu failed", (long long)value->u.integer, busy, failed);
      self->api->log(self->host, PB_LOG_WARNING, line);
      return PB_OK;
    }

    static pb_status flooder_stop(void *instance, pb_error *error) {
      (void)instance;
      (void)error;
      return PB_OK;
    }

    static void flooder_destroy(void *instance) { free(instance); }

    static const pb_plugin_descriptor descriptor = {
        .size = sizeof(pb_plugin_descriptor),
        .abi_major = PB_ABI_MAJOR,
        .abi_minor = PB_ABI_MINOR,
        .name = "example-c",
        .version = "1.0.0",
        .description = "Floods its output, for back-pressure tests",
        .create = flooder_create,
        .start = flooder_start,
        .receive = flooder_receive,
        .stop = flooder_stop,
        .destroy = flooder_destroy,
    #ifdef FLOOD_BUSY
        .flags = PB_PLUGIN_PUBLISH_BUSY,
    #endif
    };

    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#
}
