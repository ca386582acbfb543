import Foundation
import PatchbayTestSupport
import Testing

/// The one process wrapper (`ChildProcess`, on swift-subprocess) that tests, the demo, the
/// bench and the CLI's parse child use: stdin, lines, SIGTERM then SIGKILL, exit status.
@Suite struct ChildProcessTests {
  @Test func linesWrittenToStandardInputComeBack() throws {
    let cat = try ChildProcess("/bin/cat", [], keepInputOpen: true)
    try cat.write("good morning\n")
    #expect(try cat.waitForLine(containing: "good morning").text == "good morning")
    try cat.write("good night")
    try cat.closeInput()
    #expect(try cat.waitForExit() == 0)
    #expect(cat.lines == ["good morning", "good night"])
    #expect(cat.outputEnded)
  }

  @Test func terminateEndsWithSIGKILLWhatIgnoresSIGTERM() throws {
    let stubborn = try ChildProcess("/bin/sh", ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"])
    try stubborn.waitForLine(containing: "ready")
    #expect(try stubborn.terminate(within: 1) == SIGKILL)
    #expect(stubborn.termination == .signaled(SIGKILL))
    #expect(!stubborn.isRunning)
  }

  @Test func exitCodeAndMergedStandardError() throws {
    let result = try runProgram("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
    #expect(result.status == 3)
    #expect(result.output.contains("out") && result.output.contains("err"))
  }

  @Test func aMissingProgramIsAnError() {
    #expect(throws: ChildProcessError.self) { try ChildProcess("/nonexistent/program", []) }
  }
}
