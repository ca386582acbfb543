import Foundation
import PatchbayTestSupport
import Testing

extension PythonPluginTests {
  /// A Python doorbell under a real hub: a Python thread publishes a button press when a file
  /// appears, a route filters clicks into the C counter, the count comes back to Python and to a
  /// Swift recorder; an exception in receive is logged with its traceback and the instance runs on.
  @Suite struct DoorbellRouteTests {
    static let doorbell = """
      import os, threading

      def create(ctx, config):
          ctx.add_output("press", "button")
          ctx.add_output("ready", "trigger")
          ctx.add_input("count", "integer")
          ctx.watch = config["watch"]
          ctx.seen = config["seen"]

      def watch(ctx):
          ring = os.path.join(ctx.watch, "ring")
          while not ctx.stopping.is_set():
              if os.path.exists(ring):
                  os.remove(ring)
                  ctx.publish("press", {"action": "click"})
              ctx.stopping.wait(0.02)

      def start(ctx):
          ctx.stopping = threading.Event()
          ctx.thread = threading.Thread(target=watch, args=(ctx,), daemon=True)
          ctx.thread.start()
          ctx.call_later(0.05, lambda: ctx.publish("ready"))

      def receive(ctx, port, value):
          if value == 2:
              raise ValueError("unlucky two")
          with open(ctx.seen, "a") as seen:
              seen.write(f"{port}={value!r}\\n")

      def stop(ctx):
          ctx.stopping.set()
          ctx.thread.join()
      """

    @Test func aPressFromAPythonThreadCountsInTheCPluginAndComesBack() throws {
      let hub = try HubUnderTest.python()
      let module = try hub.writeModule("doorbell", Self.doorbell)
      try FileManager.default.createDirectory(atPath: hub.path + "/watch", withIntermediateDirectories: true)
      try hub.writeConfig(
        HubTOML()
          .instance(
            "door", plugin: "python",
            ["module": .string(module), "watch": "\(hub.path)/watch", "seen": "\(hub.path)/seen.txt"]
          )
          + hub.writable(files: ["\(hub.path)/seen.txt"], folders: ["\(hub.path)/watch"])
          + HubUnderTest.counter
          + hub.probe(.state("count", "integer"), .event("ready", "trigger"))
          .route(from: "door.press", to: "counter.increment", ["filter": ["click"]])
          .arrayTable("routes", ["from": "counter.count", "to": ["probe.count", "door.count"]])
          .route(from: "door.ready", to: "probe.ready"))
      try hub.start()
      // The counter's first value reaches Python; the call_later timer published `ready`.
      try eventually("count 0 seen by Python", within: 60) { hub.lines("seen.txt").contains("count=0") }
      try eventually("ready recorded", within: 60) {
        hub.lines("probe.jsonl").contains(#"{"port":"ready","value":"trigger"}"#)
      }
      let pid = try hub.pid(of: "door")
      #expect(pid != nil)

      // A file appears: the Python thread publishes a click, the C counter counts it.
      func ring(expecting count: Int) throws {
        try hub.directory.write("watch/ring", "")
        try eventually("count \(count) recorded", within: 60) {
          hub.lines("probe.jsonl").contains(#"{"port":"count","value":\#(count)}"#)
        }
      }
      try ring(expecting: 1)
      try eventually("count 1 seen by Python", within: 60) { hub.lines("seen.txt").contains("count=1") }

      // receive raises on 2: the traceback is in the hub's log, counted, and the instance runs on.
      try ring(expecting: 2)
      try eventually("the traceback logged", within: 60) {
        hub.log.contains("ValueError: unlucky two") && hub.log.contains("Traceback (most recent call last)")
      }
      #expect(hub.log.contains("receive(ctx, port, value) raised (error 1 of this instance)"))
      #expect(hub.log.contains(#"raise ValueError("unlucky two")"#))
      try ring(expecting: 3)
      try eventually("count 3 seen by Python", within: 60) { hub.lines("seen.txt").contains("count=3") }
      #expect(!hub.lines("seen.txt").contains("count=2"))
      #expect(try hub.pid(of: "door") == pid)

      // stop(ctx) joins the module's thread: the hub ends cleanly.
      #expect(try hub.process!.terminate(within: 60) == 0)
    }
  }
}
