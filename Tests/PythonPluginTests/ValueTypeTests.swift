import Foundation
import PatchbayTestSupport
import Testing

extension PythonPluginTests {
  /// Values from Python are type-checked at the boundary: a wrong type raises a TypeError naming
  /// the port and the expected type, a bad value a ValueError; a right one flows through a route.
  @Suite struct ValueTypeTests {
    static let publisher = """
      def create(ctx, config):
          ctx.add_output("level", "integer")
          ctx.add_output("lamp", "light")
          ctx.add_output("press", "button")
          ctx.add_output("tone", "color")
          ctx.add_input("kick", "trigger")
          ctx.report = config["report"]

      def attempt(ctx, port, value):
          try:
              ctx.publish(port, value)
              outcome = "ok"
          except Exception as error:
              outcome = f"{type(error).__name__}: {error}"
          with open(ctx.report, "a") as report:
              report.write(outcome + "\\n")

      def start(ctx):
          attempt(ctx, "level", "high")
          attempt(ctx, "level", True)
          attempt(ctx, "lamp", {"on": 1})
          attempt(ctx, "lamp", {"brightnes": 50})
          attempt(ctx, "press", "triple")
          attempt(ctx, "tone", {"hue": 400, "saturation": 50, "brightness": 50})
          attempt(ctx, "nope", 1)
          attempt(ctx, "lamp", {"on": True, "brightness": 40, "color": {"hue": 120, "saturation": 80}})
          attempt(ctx, "press", {"action": "double_click", "queued": True, "age_ms": 1500})
          attempt(ctx, "level", 5)

      def receive(ctx, port, value):
          ctx.publish("level", 2.5)   # uncaught: logged with its traceback
      """

    @Test func wrongTypesRaiseClearErrorsAndRightOnesFlow() throws {
      let hub = try HubUnderTest.python()
      try hub.writeConfig(
        HubTOML()
          .instance(
            "source", plugin: "python",
            ["module": .string(try hub.writeModule("publisher", Self.publisher)), "report": "\(hub.path)/report.txt"]
          )
          + hub.writable(files: ["\(hub.path)/report.txt"])
          + hub.probe(.state("level", "integer"), .state("lamp", "light"), .event("press", "button"))
          .routes(["source.level": "probe.level", "source.lamp": "probe.lamp", "source.press": "probe.press"]))
      try hub.start()
      try eventually("level 5 recorded", within: 60) {
        hub.lines("probe.jsonl").contains(#"{"port":"level","value":5}"#)
      }
      #expect(
        hub.lines("report.txt") == [
          "TypeError: port 'level' expects integer (int), got str",
          "TypeError: port 'level' expects integer (int), got bool",
          "TypeError: port 'lamp': light 'on' must be a bool, got int",
          "TypeError: port 'lamp': unknown light key 'brightnes'",
          "ValueError: port 'press': button action must be one of down, up, click, double_click, hold; got 'triple'",
          "ValueError: port 'tone': hue must be in [0, 360), got 400",
          "KeyError: \"no output port 'nope' (declare it with ctx.add_output in create)\"",
          "ok", "ok", "ok",
        ])
      let recorded = hub.lines("probe.jsonl")
      #expect(recorded.contains { $0.contains(#""port":"lamp""#) && $0.contains(#""on":true"#) })
      #expect(recorded.contains { $0.contains(#""action":"double_click","queued":true,"age_ms":1500"#) })

      // Uncaught in receive: the TypeError and its traceback are in the log; the instance runs on.
      #expect(try hub.cli("send", "source.kick", "trigger").status == 0)
      try eventually("the TypeError logged", within: 60) {
        hub.log.contains("TypeError: port 'level' expects integer (int), got float")
      }
      #expect(try hub.pid(of: "source") != nil)
      #expect(try hub.process!.terminate(within: 60) == 0)
    }
  }
}
