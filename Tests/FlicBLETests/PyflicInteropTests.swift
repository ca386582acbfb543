import Foundation
import PatchbayTestSupport
import Testing

/// pyflic-ble (Shortcut Labs' own Python client, the one Home Assistant uses) pairs with the
/// simulator in FlicBLEButtonHost and reads its presses: Scripts/pyflic_against_simulator.py.
/// Needs a Python >= 3.12 (pyenv's on these machines, or PATCHBAY_PYTHON312) and PyPI once; the
/// virtual environment is cached like PatchbayTestSupport's.
@Suite("pyflic-ble against the simulator")
struct PyflicInteropTests {
  static let pinned = "pyflic-ble==0.2.5"

  static let python: String? = {
    let environment = ProcessInfo.processInfo.environment
    if let explicit = environment["PATCHBAY_PYTHON312"] { return explicit }
    let root = environment["PYENV_ROOT"] ?? (NSHomeDirectory() + "/.pyenv")
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root + "/versions")) ?? []
    return versions.sorted().first { $0.hasPrefix("3.12.") || $0.hasPrefix("3.13.") }
      .map { root + "/versions/" + $0 + "/bin/python3" }
  }()

  static let buttonHost: String? = {
    var url = Bundle.main.bundleURL
    for _ in 0..<4 {
      let candidate = url.appendingPathComponent("FlicBLEButtonHost").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      url.deleteLastPathComponent()
    }
    return nil
  }()

  @Test(.enabled(if: python != nil && buttonHost != nil, "needs Python >= 3.12 and the FlicBLEButtonHost build"))
  func pyflicPairsAndReadsClickDoubleClickAndHold() throws {
    try Self.expectPassed("pyflic_against_simulator", checks: 12)
  }

  /// pyflic-ble's Duo handler against the simulated Duo: its own parser reads the simulator's
  /// bit-packed events of both buttons and the swipes (Scripts/pyflic_duo_against_simulator.py).
  @Test(.enabled(if: python != nil && buttonHost != nil, "needs Python >= 3.12 and the FlicBLEButtonHost build"))
  func pyflicReadsTheSimulatedDuosButtonsAndSwipes() throws {
    try Self.expectPassed("pyflic_duo_against_simulator", checks: 8)
  }

  /// pyflic-ble's Twist handler against the simulated Twist: its own service, the Twist's opcode
  /// table, key derivation and 13-mode init, push-button codes and rotation reports, read by
  /// pyflic-ble's own rotate tracker (Scripts/pyflic_twist_against_simulator.py).
  @Test(.enabled(if: python != nil && buttonHost != nil, "needs Python >= 3.12 and the FlicBLEButtonHost build"))
  func pyflicPairsWithTheSimulatedTwistAndReadsItsButtonAndDial() throws {
    try Self.expectPassed("pyflic_twist_against_simulator", checks: 19)
  }

  /// Runs Scripts/NAME.py in the environment against the button host; it must exit 0 with
  /// `checks` checks passed and none failed.
  static func expectPassed(_ name: String, checks: Int) throws {
    let venv = try environment()
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Scripts/\(name).py").path
    let (status, output) = try run(venv + "/bin/python", ["-u", script, buttonHost!], within: 180)
    #expect(status == 0, "\(output)")
    #expect(output.contains("\(checks) passed, 0 failed"), "\(output)")
  }

  /// The cached virtual environment with pyflic-ble, made on first use. PatchbayTestSupport's,
  /// which makes it under a lock: the three tests here ask for it at once, and each making its
  /// own in the same folder failed ensurepip in a clean-clone CI.
  static func environment() throws -> String {
    try PythonEnvironment.prepared([pinned], interpreter: python!).path
  }

  static func run(_ program: String, _ arguments: [String], within seconds: Double) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let deadline = DispatchTime.now() + seconds
    let done = DispatchSemaphore(value: 0)
    let collected = OutputBox()
    DispatchQueue.global().async {
      collected.data = output.fileHandleForReading.readDataToEndOfFile()
      done.signal()
    }
    if done.wait(timeout: deadline) == .timedOut {
      process.terminate()
      throw InteropError("\(program) did not finish within \(seconds) s")
    }
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: collected.data, as: UTF8.self))
  }
}

private final class OutputBox: @unchecked Sendable {
  // Written once by the reading thread before the semaphore is signalled, read after it.
  var data = Data()
}

struct InteropError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
