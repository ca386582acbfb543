import Foundation
import PatchbayTestSupport
import Testing

extension PythonPluginTests {
  /// Python threads publish concurrently (each publish releases the GIL around the host call):
  /// every event reaches the C counter through a route, none lost or doubled.
  @Suite struct ThreadedPublishTests {
    static let module = """
      import threading

      def create(ctx, config):
          ctx.add_output("tick", "trigger")
          ctx.per_thread = config["per_thread"]

      def burst(ctx):
          for _ in range(ctx.per_thread):
              ctx.publish("tick")

      def start(ctx):
          ctx.threads = [threading.Thread(target=burst, args=(ctx,)) for _ in range(4)]
          for thread in ctx.threads:
              thread.start()

      def stop(ctx):
          for thread in ctx.threads:
              thread.join()
      """

    @Test func fourThreadsPublishingAtOnceLoseNothing() throws {
      let hub = try HubUnderTest.python()
      try hub.writeConfig(
        HubTOML()
          .instance(
            "burst", plugin: "python",
            ["module": .string(try hub.writeModule("burst", Self.module)), "per_thread": 250])
          + HubUnderTest.counter
          + hub.probe(.state("count", "integer"))
          .routes(["burst.tick": "counter.increment", "counter.count": "probe.count"]))
      try hub.start()
      // State values may be coalesced on the way to the probe; the last one is the total.
      try eventually("count 1000 recorded", within: 120) {
        hub.lines("probe.jsonl").contains(#"{"port":"count","value":1000}"#)
      }
      #expect(!hub.lines("probe.jsonl").contains(#"{"port":"count","value":1001}"#))
      #expect(!hub.log.contains("Traceback"))
      #expect(try hub.process!.terminate(within: 60) == 0)
    }
  }
}
