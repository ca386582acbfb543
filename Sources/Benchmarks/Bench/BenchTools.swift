import ChildProcesses
import Foundation

/// The programs a run uses: the hub, plugin host, simulators and bundled plugins built beside
/// `patchbay-bench` (the same `swift build -c release` tree), and the C probes, compiled here
/// with gcc from Sources/Benchmarks/Probes so that SwiftPM (and the package) never sees them.
struct BenchTools {
  let productDirectory: String
  let work: String
  let patchbay: String
  let pluginHost: String
  let simulator: String
  /// Holds bench-probe.so; the hub's plugin path lists it after the build tree.
  let probePluginDirectory: String
  let socketpairProbe: String
  /// producer -> relay -> consumer over two socketpairs: the physical limit of a hop.
  let relayProbe: String
  /// LD_PRELOAD for the hub under callgrind (Probes/callgrind-shim.c says why).
  let callgrindShim: String
  /// nil when libmosquitto-dev is missing (scripts/bench installs it).
  let mqttProbe: String?

  /// The simulators only for the sections that run them (start-up, button): the others run
  /// without building patchbay-sim and its SwiftNIO.
  static func require(_ program: String) throws {
    guard !FileManager.default.isExecutableFile(atPath: program) else { return }
    throw BenchError("\(program) is missing: build with `swift build -c release` first (scripts/bench does)")
  }

  init(sourceRoot: String, work: String) throws {
    let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    productDirectory = (own as NSString).deletingLastPathComponent
    self.work = work
    patchbay = productDirectory + "/patchbay"
    pluginHost = productDirectory + "/patchbay-plugin-host"
    simulator = productDirectory + "/patchbay-sim"
    for program in [patchbay, pluginHost] { try Self.require(program) }
    let probes = sourceRoot + "/Sources/Benchmarks/Probes"
    guard FileManager.default.fileExists(atPath: probes + "/probe-plugin.c") else {
      throw BenchError("no probes under \(probes): pass --source-root with the repository")
    }
    probePluginDirectory = work + "/plugins"
    try FileManager.default.createDirectory(atPath: probePluginDirectory, withIntermediateDirectories: true)
    let header = sourceRoot + "/Sources/CPatchbayPlugin/include"
    try Self.gcc([
      "-shared", "-fPIC", "-I", header, probes + "/probe-plugin.c", "-o", probePluginDirectory + "/bench-probe.so",
      "-lpthread",
    ])
    socketpairProbe = work + "/socketpair-probe"
    try Self.gcc([probes + "/socketpair-probe.c", "-o", socketpairProbe])
    relayProbe = work + "/relay-probe"
    try Self.gcc([probes + "/relay-probe.c", "-o", relayProbe])
    callgrindShim = work + "/callgrind-shim.so"
    try Self.gcc(["-shared", "-fPIC", probes + "/callgrind-shim.c", "-o", callgrindShim, "-ldl"])
    let mqtt = work + "/mqtt-probe"
    mqttProbe = (try? Self.gcc([probes + "/mqtt-probe.c", "-o", mqtt, "-lmosquitto", "-lpthread"])) != nil ? mqtt : nil
  }

  private static func gcc(_ arguments: [String]) throws {
    let result = try ChildProcess.runToEnd("/usr/bin/gcc", ["-O2", "-Wall"] + arguments)
    guard result.status == 0 else {
      throw BenchError("gcc \(arguments.joined(separator: " ")) failed:\n\(result.output)")
    }
  }

  /// A directory of its own under the work directory for one benchmark.
  func directory(_ name: String) throws -> String {
    let path = work + "/" + name
    try? FileManager.default.removeItem(atPath: path)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// The `[hub]` section every benchmark config starts with.
  func hubSection(directory: String) -> String {
    """
    [hub]
    state_directory = "\(directory)/state"
    control_socket = "\(directory)/control.sock"
    plugin_path = ["\(productDirectory)", "\(probePluginDirectory)"]
    log_level = "warning"

    """
  }
}

extension ChildProcess {
  /// Runs a program to completion however long it takes (a callgrind run takes minutes);
  /// standard output and error together.
  static func runToEnd(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    try run(executable, arguments, within: 6 * 3600)
  }
}
