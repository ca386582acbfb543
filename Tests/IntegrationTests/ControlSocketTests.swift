import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The control socket is driven by events: connections cost no thread each, a client may
/// close its side once it has asked, and a watcher that reads too slowly is told what it lost.
@Suite(.serialized) struct ControlSocketTests {
  func startHub() throws -> HubUnderTest {
    let harness = try HubUnderTest("patchbay-control")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "example-c", ["step": 1, "tick_ms": 1])
        .probe(ports: [.state("count", "integer")])
        .route(from: "counter.count", to: "probe.count"))
    try harness.start()
    try harness.waitUntilRunning("counter", "probe")
    return harness
  }

  @Test func manyWatchersTakeNoThreadEach() throws {
    let harness = try startHub()
    defer { _ = try? harness.stop() }
    let hub = harness.process!.pid
    let before = Self.threads(of: hub)
    let watchers = try (0..<32).map { _ in try ControlSocketClient.Connection(path: harness.socketPath) }
    for watcher in watchers { watcher.send(#"{"command":"watch","pattern":"counter.tick"}"# + "\n") }
    // Each one streams: its answer, then values.
    for watcher in watchers {
      let text = watcher.read { $0.split(separator: "\n").count >= 3 }
      #expect(text.contains("watching") && text.contains("counter.tick "), "\(text)")
    }
    let during = Self.threads(of: hub)
    // A thread per connection (and one writer per watch) was 64 more here.
    #expect(during - before < 16, "\(before) threads before 32 watchers, \(during) with them")
  }

  @Test func aClientThatClosesItsSideAfterAskingGetsTheAnswer() throws {
    let harness = try startHub()
    defer { _ = try? harness.stop() }
    let client = try ControlSocketClient.Connection(path: harness.socketPath)
    // The request in two writes, then the end of what the client sends (as `socat` does).
    client.send(#"{"command":"#)
    client.send(#""status"}"# + "\n")
    client.closeSending()
    let answer = client.read { _ in false }
    let json = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
    #expect(json?["ok"] as? Bool == true, "\(answer)")
    #expect(json?["status"] != nil, "\(answer)")
  }

  @Test func aWatcherThatReadsTooSlowlyIsToldWhatItLost() throws {
    let harness = try startHub()
    defer { _ = try? harness.stop() }
    let watcher = try ControlSocketClient.Connection(path: harness.socketPath)
    watcher.send(#"{"command":"watch","pattern":"counter.tick"}"# + "\n")
    _ = watcher.read { $0.contains("watching") }
    // Not reading: the socket fills, then the watcher's buffer of 4,096 lines overflows.
    let start = try Self.messagesOut(harness)
    try eventually("12,000 more values routed", within: 120) { try Self.messagesOut(harness) > start + 12_000 }
    let text = watcher.read { $0.contains("lines dropped: this watcher read too slowly") }
    #expect(text.contains("lines dropped: this watcher read too slowly"), "\(text.suffix(300))")
    // And it goes on streaming after the notice.
    let marker = text.count
    let more = watcher.read { $0.count > marker + 200 && $0.hasSuffix("\n") }
    #expect(more.dropFirst(marker).contains("counter.tick "))
  }

  static func threads(of pid: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
  }

  static func messagesOut(_ harness: HubUnderTest) throws -> Int {
    (try harness.instanceStatus("counter")?["messagesOut"] as? Int) ?? 0
  }
}
