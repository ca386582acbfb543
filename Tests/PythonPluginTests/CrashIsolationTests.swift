import Foundation
import PatchbayTestSupport
import Testing

extension PythonPluginTests {
  /// An interpreter that dies (os.abort(), or a segfault through ctypes) costs only its own instance: the supervisor
  /// restarts it in a new process and the other Python instance keeps its process and its work.
  @Suite struct CrashIsolationTests {
    static let crasher = """
      import ctypes, os

      def create(ctx, config):
          ctx.add_input("boom", "trigger")
          ctx.add_input("segv", "trigger")

      def receive(ctx, port, value):
          if port == "boom":
              os.abort()
          ctypes.string_at(0)   # a segfault inside the interpreter
      """

    static let steady = """
      def create(ctx, config):
          ctx.add_input("level", "integer")
          ctx.out = config["out"]

      def receive(ctx, port, value):
          with open(ctx.out, "a") as out:
              out.write(f"{value}\\n")
      """

    /// `steady`: writes each level it gets to steady.txt, which it may write.
    static func steadyInstance(_ hub: HubUnderTest) throws -> HubTOML {
      try HubTOML()
        .instance(
          "steady", plugin: "python",
          ["module": .string(try hub.writeModule("steady", Self.steady)), "out": "\(hub.path)/steady.txt"]
        )
        + hub.writable(files: ["\(hub.path)/steady.txt"])
    }

    static let unready = """
      def create(ctx, config):
          pass

      def start(ctx):
          raise ConnectionError("no doorbell here")
      """

    @Test func anAbortingInterpreterIsRestartedAndTheOthersRunOn() throws {
      let hub = try HubUnderTest.python()
      try hub.writeConfig(
        HubTOML().instance(
          "crasher", plugin: "python", ["module": .string(try hub.writeModule("crasher", Self.crasher))])
          + Self.steadyInstance(hub))
      try hub.start()
      var crasherPID: Int32?
      var steadyPID: Int32?
      try eventually("both running", within: 60) {
        crasherPID = try hub.pid(of: "crasher")
        steadyPID = try hub.pid(of: "steady")
        return crasherPID != nil && steadyPID != nil
      }
      #expect(try hub.cli("send", "steady.level", "1").status == 0)
      try eventually("steady got 1", within: 60) { hub.lines("steady.txt") == ["1"] }

      #expect(try hub.cli("send", "crasher.boom", "trigger").status == 0)
      // A new process for the crasher, running again; the steady instance kept its own.
      try hub.waitForNewProcess(
        of: "crasher", replacing: crasherPID, what: "crasher restarted in a new process", within: 90)
      #expect(try hub.pid(of: "steady") == steadyPID)

      // A segfault through ctypes: the same.
      let abortedPID = try hub.pid(of: "crasher")
      #expect(try hub.cli("send", "crasher.segv", "trigger").status == 0)
      try hub.waitForNewProcess(
        of: "crasher", replacing: abortedPID, crasherPID, what: "crasher restarted after a segfault", within: 90)
      #expect(hub.log.contains("SIGSEGV"))
      #expect(try hub.pid(of: "steady") == steadyPID)
      #expect(try hub.cli("send", "steady.level", "2").status == 0)
      try eventually("steady got 2", within: 60) { hub.lines("steady.txt") == ["1", "2"] }
      #expect(try hub.process!.terminate(within: 60) == 0)
    }
    /// start(ctx) raising fails the start: the traceback is logged, the supervisor retries in a
    /// new process, and the other instance runs on.
    @Test func aRaisingStartIsLoggedAndRetried() throws {
      let hub = try HubUnderTest.python()
      try hub.writeConfig(
        HubTOML().instance(
          "unready", plugin: "python", ["module": .string(try hub.writeModule("unready", Self.unready))])
          + Self.steadyInstance(hub))
      try hub.start()
      try eventually("a retry after the failed start", within: 60) {
        hub.log.contains("start(ctx) raised (error 1 of this instance)")
          && hub.log.contains("ConnectionError: no doorbell here")
          && hub.log.contains("[unready] start failed: ConnectionError: no doorbell here")
          && hub.log.contains("restart 2 of")
      }
      #expect(try hub.cli("send", "steady.level", "3").status == 0)
      try eventually("steady got 3", within: 60) { hub.lines("steady.txt") == ["3"] }
      #expect(try hub.process!.terminate(within: 60) == 0)
    }
  }
}
