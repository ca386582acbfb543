import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A cached Python virtual environment with real peers from PyPI (aiohomekit, HAP-python, ...)
/// installed into it, for tests that need a real controller or accessory rather than a mock.
///
/// Made with Debian's `/usr/bin/python3 -m venv` (package python3-venv, test group) under
/// `$PATCHBAY_TEST_CACHE` or `~/.cache/patchbay/python`, one folder per requirement list, so a
/// second run (and every later test in the same run) reuses it. Creation takes a lock file,
/// since test processes may ask for the same environment at once.
public struct PythonEnvironment: Sendable {
  /// The requirements this environment was made for, pinned (`name==version`).
  public let requirements: [String]
  /// The environment's folder; `python` is inside it.
  public let path: String
  public var python: String { path + "/bin/python" }

  /// aiohomekit, the HomeKit controller library Home Assistant uses (pulls in zeroconf).
  public static let aiohomekit = ["aiohomekit==4.0.1"]
  /// HAP-python, the accessory server behind Home Assistant's HomeKit Bridge (patchbay-bench's
  /// HomeKit baseline).
  public static let hapPython = ["HAP-python==5.0.0"]

  /// The environment for `requirements`, made with `interpreter`'s venv and installed on first
  /// use; `constraints` (a pip constraints file, such as a Home Assistant release's own
  /// package_constraints.txt) pins everything pip brings in.
  public static func prepared(
    _ requirements: [String], interpreter: String = "/usr/bin/python3", constraints: String? = nil
  ) throws -> PythonEnvironment {
    let cache =
      ProcessInfo.processInfo.environment["PATCHBAY_TEST_CACHE"]
      ?? (NSHomeDirectory() + "/.cache/patchbay")
    // The default interpreter keeps the key the environments already cached have.
    var key = requirements.sorted().joined(separator: " ")
    if interpreter != "/usr/bin/python3" { key += " python=" + interpreter }
    if let constraints { key += " constraints=" + constraints }
    let folder = cache + "/python/" + stableName(key)
    let environment = PythonEnvironment(requirements: requirements, path: folder)
    try FileManager.default.createDirectory(atPath: cache + "/python", withIntermediateDirectories: true)
    let lock = open(folder + ".lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
    guard lock >= 0 else { throw PythonEnvironmentError("cannot open \(folder).lock: errno \(errno)") }
    defer { close(lock) }
    flock(lock, LOCK_EX)
    defer { flock(lock, LOCK_UN) }
    // The marker is written last: a run killed half-way leaves no marker and is redone.
    let marker = folder + "/.patchbay-ready"
    if FileManager.default.fileExists(atPath: marker) { return environment }
    try? FileManager.default.removeItem(atPath: folder)
    try environment.run(interpreter, ["-m", "venv", folder], within: 300, doing: "\(interpreter) -m venv")
    try environment.run(
      environment.python,
      ["-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
        + (constraints.map { ["-c", $0] } ?? []) + requirements,
      within: 1800, doing: "pip install \(key)")
    _ = FileManager.default.createFile(atPath: marker, contents: Data(key.utf8))
    return environment
  }

  /// Runs `script` (Python source) with `arguments`; returns status and merged output (stderr
  /// included). A generous deadline: importing HAP-python or aiohomekit alone takes seconds idle.
  public func run(script: String, _ arguments: [String] = [], within seconds: Double = 300) throws
    -> (status: Int32, output: String)
  {
    try runProgram(python, ["-c", script] + arguments, within: seconds)
  }

  private func run(_ executable: String, _ arguments: [String], within seconds: Double, doing what: String) throws {
    let result = try runProgram(executable, arguments, within: seconds)
    guard result.status == 0 else {
      throw PythonEnvironmentError("\(what) failed (exit \(result.status)):\n\(result.output)")
    }
  }

  /// A file-name-safe digest of the requirement list (FNV-1a; only needs to be stable).
  private static func stableName(_ key: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in key.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return "venv-" + String(hash, radix: 16)
  }
}

public struct PythonEnvironmentError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}
