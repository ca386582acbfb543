import Foundation
import PatchbayTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Races the core's per-field locks did not prevent, each with real processes.
@Suite(.serialized) struct CoreRaceTests {
  /// `worker` is the fault worker's timeouts.
  func config(
    _ harness: HubUnderTest, step: Int, worker: KeyValuePairs<String, HubTOML.Value> = ["hang_timeout_ms": 1500]
  ) -> HubTOML {
    HubTOML()
      .instance("counter", plugin: "example-c", ["step": .integer(step), "tick_ms": 1])
      .probe(ports: [.state("count", "integer")])
      .instance("worker", plugin: "fault", ["heartbeat_interval_ms": 200])
      .keys(worker)
      .route(from: "counter.count", to: "probe.count")
  }

  func startHub(
    step: Int = 1, worker: KeyValuePairs<String, HubTOML.Value> = ["hang_timeout_ms": 1500],
    environment: [String: String] = [:]
  ) throws -> HubUnderTest {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.linkBuiltPlugins(["example-swift", "fault"])
    try harness.writeConfig(config(harness, step: step, worker: worker))
    try harness.start(environment: environment)
    return harness
  }

  @Test func twoReloadsAtOnceLaunchEachInstanceOnce() throws {
    let harness = try startHub()
    try eventually("three plugin processes") { harness.pluginPIDs().count == 3 }
    try harness.writeConfig(config(harness, step: 2))
    // SIGHUP and `patchbay reload` together.
    harness.process!.signal(SIGHUP)
    let reload = try harness.cli("reload")
    #expect(reload.status == 0, "\(reload.output)")
    try harness.process!.waitForLine(containing: "SIGHUP: reloading")
    try eventually("both reloads done") {
      harness.process!.lines.filter { $0.contains("reloaded: ") }.count == 2
    }
    // One process per instance: no second counter running outside the hub's books. A process
    // a reload started only for a moment (its port probe, its config parse child) may still be
    // ending when the reload reports; a duplicate supervisor would stay.
    try eventually("one plugin process per instance: \(harness.pluginPIDs())", within: 30) {
      harness.pluginPIDs().count == 3
    }
    let counter = try harness.instanceStatus("counter")
    #expect(counter?["phase"] as? String == "running")
    try harness.stop()
  }

  @Test func aWatcherThatNeverReadsGetsNoPluginKilled() throws {
    let harness = try startHub()
    // A `watch` client that sends its request and then never reads a byte.
    let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(client) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(harness.socketPath.utf8)) }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(connected == 0)
    let request = #"{"command":"watch","pattern":"*"}"# + "\n"
    _ = request.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    // counter ticks every ms: its lines fill the watcher's socket within a second or two.
    // Wait until far more values flowed than the socket and the watcher's buffer hold, and
    // well past the hang timeout (1.5 s).
    try eventually("20,000 values routed", within: 120) {
      ((try harness.instanceStatus("counter")?["messagesOut"] as? Int) ?? 0) > 20_000
    }
    for name in ["counter", "probe", "worker"] {
      let status = try harness.instanceStatus(name)
      #expect(status?["restarts"] as? Int == 0, "\(name) was restarted: \(String(describing: status))")
    }
    #expect(!harness.process!.lines.contains { $0.contains("not answering heartbeats") }, "\(harness.process!.output)")
    try harness.stop()
  }

  @Test func aReloadBlockedOnAHungPluginDoesNotStopTheWatchdog() throws {
    let notify = try NotifySocket()
    // WATCHDOG_USEC = 1 s: the hub pings every 0.5 s.
    let harness = try startHub(
      worker: ["stop_timeout_ms": 4000, "hang_timeout_ms": 60000],
      environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
    try eventually("watchdog pings") { notify.count("WATCHDOG=1") >= 2 }
    // The worker hangs; a reload that changes it must wait for its stop (4 s), then SIGTERM.
    #expect(try harness.cli("send", "worker.command", "hang").status == 0)
    try harness.process!.waitForLine(containing: "injecting fault: hang")
    try harness.writeConfig(config(harness, step: 1, worker: ["stop_timeout_ms": 3999, "hang_timeout_ms": 60000]))
    harness.process!.signal(SIGHUP)
    try harness.process!.waitForLine(containing: "SIGHUP: reloading")
    let pingsBefore = notify.count("WATCHDOG=1")
    try harness.process!.waitForLine(containing: "did not stop within", within: 60)
    // Still inside the blocked reload (it waits for the hung process): the pings went on.
    let pingsDuring = notify.count("WATCHDOG=1") - pingsBefore
    #expect(pingsDuring >= 4, "only \(pingsDuring) watchdog pings while the reload waited 4 s")
    try harness.process!.waitForLine(containing: "reloaded: ", within: 60)
    try harness.stop()
  }
}

/// A datagram socket standing in for systemd's $NOTIFY_SOCKET: it counts what the hub says.
final class NotifySocket: Sendable {
  let path: String
  private let descriptor: Int32
  private let messages = Mutex<[String]>([])

  init() throws {
    path = NSTemporaryDirectory() + "patchbay-notify-\(UUID().uuidString.prefix(8)).sock"
    descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard bound == 0 else { throw HubUnderTestError("cannot bind \(path)") }
    Thread.detachNewThread { [self] in receive() }
  }

  private func receive() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count <= 0 { return }
      let text = String(decoding: buffer[0..<count], as: UTF8.self)
      messages.withLock { $0.append(text) }
    }
  }

  func count(_ text: String) -> Int { messages.withLock { $0.filter { $0.contains(text) }.count } }
}
