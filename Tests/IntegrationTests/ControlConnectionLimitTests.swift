import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Connections that never send a request cannot use up the hub's descriptors: the control
/// socket holds a bounded number (total and per user), closes idle ones, and the hub raises its
/// soft descriptor limit to the hard one at start.
@Suite(.serialized) struct ControlConnectionLimitTests {
  static let config = HubTOML()
    .instance("counter", plugin: "example-c", ["step": 1, "tick_ms": 50])
    .probe(ports: [.state("count", "integer")])

  /// A hub run under `prlimit --nofile=SOFT:HARD`, started and answering.
  func startHub(soft: Int, hard: Int) throws -> (HubUnderTest, ChildProcess) {
    let harness = try HubUnderTest("patchbay-control-limits")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(Self.config)
    let hub = try ChildProcess(
      "/usr/bin/prlimit",
      ["--nofile=\(soft):\(hard)", "--", BuildProducts.executable("patchbay"), "run", "--config", harness.configPath])
    try eventually("the hub to start; output so far:\n\(hub.output)", within: 90) {
      hub.lines.contains { $0.contains("hub started") } || !hub.isRunning
    }
    try eventually("the hub's control socket to answer", within: 90) { (try? harness.status()) != nil }
    try harness.waitUntilRunning("counter", "probe")
    return (harness, hub)
  }

  /// The brief's case at test scale: with 256 descriptors in all, 300 connections that never
  /// send. Before, the hub ran out of descriptors: `status` waited in the backlog forever.
  @Test func moreIdleConnectionsThanDescriptorsLeaveStatusAnswering() throws {
    Self.raiseOwnDescriptorLimit()
    let (harness, hub) = try startHub(soft: 256, hard: 256)
    defer { hub.signal(SIGKILL) }
    var idle: [RawConnection] = []
    defer { idle.forEach { $0.close() } }
    var failures = 0
    while idle.count < 300, failures < 3 {
      // A connect waits while the hub's backlog is full, at most 10 s: a hub that no longer
      // accepts fails the test rather than hanging it.
      if let connection = RawConnection(path: harness.socketPath, connectSeconds: 10) {
        idle.append(connection)
      } else {
        failures += 1
      }
    }
    #expect(idle.count == 300, "only \(idle.count) of 300 connections got through the hub's backlog")
    let status = try runProgram(
      BuildProducts.executable("patchbay"), ["status", "--config", harness.configPath], within: 60)
    #expect(status.status == 0, "\(status.output)")
    #expect(status.output.contains("counter") && status.output.contains("probe"), "\(status.output)")
    // A state change still goes through (the probe's state is written), and the hub lives.
    let sent = try runProgram(
      BuildProducts.executable("patchbay"), ["send", "probe.count", "42", "--config", harness.configPath], within: 60)
    #expect(sent.status == 0, "\(sent.output)")
    #expect(hub.isRunning)
    // Descriptors stay in reserve: the control socket holds at most a quarter of the limit.
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(hub.pid)/fd").count) ?? 0
    #expect(open > 0 && open < 200, "the hub has \(open) of 256 descriptors open")
    #expect(!hub.output.contains("Too many open files"), "\(hub.output.suffix(2000))")
    idle.forEach { $0.close() }
    idle = []
    hub.signal(SIGTERM)
    #expect(try hub.waitForExit(within: 60) == 0, "\(hub.output.suffix(2000))")
  }

  /// A connection that sends no whole request line is closed after the idle time; a `watch`
  /// that hears nothing for longer is not idle and streams on.
  @Test func anIdleConnectionIsClosedAndAQuietWatchIsNot() throws {
    let (harness, hub) = try startHub(soft: 1024, hard: 1024)
    defer { hub.signal(SIGKILL) }
    let watcher = try ControlSocketClient.Connection(path: harness.socketPath, timeoutSeconds: 90)
    watcher.send(#"{"command":"watch","pattern":"probe.count.out"}"# + "\n")
    _ = watcher.read { $0.contains("watching") }
    let silent = try #require(RawConnection(path: harness.socketPath))
    let partial = try #require(RawConnection(path: harness.socketPath))
    partial.send(#"{"command":"sta"#)
    #expect(silent.waitForEnd(within: 90), "a connection that never sent stayed open")
    #expect(partial.waitForEnd(within: 90), "a connection with half a request stayed open")
    // The watch is still there, as quiet as the idle ones were: a value reaches it.
    try harness.send("probe.count", "7")
    let text = watcher.read { $0.contains("probe.count.out 7") }
    #expect(text.contains("probe.count.out 7"), "\(text)")
    hub.signal(SIGTERM)
    _ = try hub.waitForExit(within: 60)
  }

  /// The soft limit goes up to the hard one at start.
  @Test func theSoftDescriptorLimitIsRaisedToTheHardOne() throws {
    let (_, hub) = try startHub(soft: 256, hard: 4096)
    defer { hub.signal(SIGKILL) }
    let limits = (try? String(contentsOfFile: "/proc/\(hub.pid)/limits", encoding: .utf8)) ?? ""
    let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
    let numbers = line.split(separator: " ").compactMap { Int($0) }
    #expect(numbers == [4096, 4096], "\(line)")
    hub.signal(SIGTERM)
    _ = try hub.waitForExit(within: 60)
  }

  static func raiseOwnDescriptorLimit() {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, 4096))
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }
}

/// A client socket for connections that hold a place and send nothing or little; nil when the
/// connect fails, or waited `connectSeconds` for room in the hub's backlog.
final class RawConnection {
  let descriptor: Int32

  init?(path: String, connectSeconds: Int = 30) {
    descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    // A Unix socket's connect waits for backlog room at most the send timeout.
    var timeout = timeval(tv_sec: connectSeconds, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8) + [0]) }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      Glibc.close(descriptor)
      return nil
    }
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
  }

  func send(_ text: String) {
    _ = Array(text.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }

  /// True once the hub closed the connection (end of stream), false at the deadline.
  func waitForEnd(within seconds: Int) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    let deadline = Date().addingTimeInterval(Double(seconds))
    var buffer = [UInt8](repeating: 0, count: 4096)
    while Date() < deadline {
      let ready = poll(&entry, 1, Int32(max(1, deadline.timeIntervalSinceNow) * 1000))
      if ready < 0, errno == EINTR { continue }
      guard ready > 0 else { return false }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return true }
    }
    return false
  }

  private var closed = false
  func close() {
    guard !closed else { return }
    closed = true
    Glibc.close(descriptor)
  }

  deinit { close() }
}
