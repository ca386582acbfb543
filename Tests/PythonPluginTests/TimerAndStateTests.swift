import Foundation
import PatchbayTestSupport
import Testing

extension PythonPluginTests {
  /// call_later runs in the plugin context through the host's timers, cancel stops one that has
  /// not run, an exception in a timer is logged with its traceback, and ctx.state_dir survives a
  /// restart of the hub.
  @Suite struct TimerAndStateTests {
    static let module = """
      import os

      def create(ctx, config):
          ctx.add_output("done", "text")
          ctx.add_input("again", "trigger")

      def never():
          raise RuntimeError("a cancelled timer ran")

      def start(ctx):
          key = ctx.call_later(0.05, never)
          cancelled, again = ctx.cancel(key), ctx.cancel(key)
          path = os.path.join(ctx.state_dir, "starts")
          starts = int(open(path).read()) + 1 if os.path.exists(path) else 1
          with open(path + ".tmp", "w") as out:
              out.write(str(starts))
          os.replace(path + ".tmp", path)
          text = f"{ctx.instance} start {starts} cancel {cancelled} {again}"
          ctx.call_later(0.2, lambda: ctx.publish("done", text))

      def receive(ctx, port, value):
          ctx.call_later(0, lambda: 1 / 0)
      """

    @Test func timersRunCancelAndFailSafelyAndStateSurvivesARestart() throws {
      let hub = try HubUnderTest.python()
      try hub.writeConfig(
        HubTOML().instance("timers", plugin: "python", ["module": .string(try hub.writeModule("timers", Self.module))])
          + hub.probe(.event("done", "text")).route(from: "timers.done", to: "probe.done"))
      try hub.start()
      try eventually("the timer published", within: 60) {
        hub.lines("probe.jsonl").contains(#"{"port":"done","value":"timers start 1 cancel True False"}"#)
      }
      #expect(try hub.cli("send", "timers.again", "trigger").status == 0)
      try eventually("the timer's exception logged", within: 60) {
        hub.log.contains("a call_later callback raised") && hub.log.contains("ZeroDivisionError")
      }
      #expect(!hub.log.contains("a cancelled timer ran"))
      #expect(try hub.process!.terminate(within: 60) == 0)

      // A new hub, the same state directory: the module counted its starts there.
      try hub.start()
      try eventually("the second start published", within: 60) {
        hub.lines("probe.jsonl").contains(#"{"port":"done","value":"timers start 2 cancel True False"}"#)
      }
      #expect(try hub.process!.terminate(within: 60) == 0)
    }
  }
}
