import Foundation
import PatchbayTestSupport
import Testing

/// An event route between healthy instances never drops: a producer that floods a consumer
/// with a small queue is slowed down (its publishes wait) and every event arrives, in order.
@Suite(.serialized) struct BackPressureTests {
  @Test func aFloodIntoASmallQueueArrivesWholeAndInOrder() throws {
    let harness = try HubHarness()
    try harness.linkBuiltPlugins(["fault"])
    try harness.writeConfig(
      """
      [instances.source]
      plugin = "fault"
      hang_timeout_ms = 3000
      heartbeat_interval_ms = 500

      [instances.sink]
      plugin = "fault"
      record = "\(harness.directory.path)/sink.txt"
      queue_size = 16

      [[routes]]
      from = "source.flood"
      to = "sink.events"
      """)
    try harness.start()
    // A consumer slower than its producer on any machine (1 ms per event), so its queue fills
    // however the scheduler shares the cores.
    #expect(try harness.cli("send", "sink.command", "slow 1").status == 0)
    let count = 5_000
    #expect(try harness.cli("send", "source.command", "flood \(count)").status == 0)
    try eventually("every event recorded", within: 300) { harness.recorded("sink.txt").count >= count }
    #expect(harness.recorded("sink.txt") == (0..<count).map(String.init))
    let sink = try harness.instanceStatus("sink")
    let source = try harness.instanceStatus("source")
    #expect(sink?["drops"] as? Int == 0)
    #expect((source?["backPressureWaits"] as? Int ?? 0) > 0, "\(String(describing: source))")
    // The producer was slowed, not killed: its answers waited behind its own publishes.
    #expect(source?["restarts"] as? Int == 0)
    #expect(!harness.hub!.lines.contains { $0.contains("not answering heartbeats") }, "\(harness.hub!.output)")
    try harness.stop()
  }
}
