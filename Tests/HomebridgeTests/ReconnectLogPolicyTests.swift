import HomebridgeConnection
import Testing

@Suite("What the client logs while Homebridge is away")
struct ReconnectLogPolicyTests {
  let start = ContinuousClock.now

  func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int64(seconds * 1000)) }

  @Test func firstFailuresEachGetALineThenAtMostOneSummaryAMinute() {
    var policy = ReconnectLogPolicy(endpoint: "ws://127.0.0.1:4050/")
    var lines: [ReconnectLogPolicy.Line] = []
    // An hour of failures every 30 s (the back-off's ceiling), and some faster ones at first.
    var time = 0.0
    for attempt in 0..<130 {
      time += attempt < 10 ? 1 : 30
      if let line = policy.attemptFailed(at: at(time), reason: "cannot connect: refused", retryIn: 30) {
        lines.append(line)
      }
    }
    #expect(lines.prefix(3).map(\.message).allSatisfy { $0.hasPrefix("cannot connect: refused; retrying in 30.0 s") })
    #expect(lines[0].level == .warning)
    let summaries = lines.dropFirst(3)
    // About 3600 s / 60 s, never two within a minute.
    #expect(summaries.count <= Int(time / 60) + 1)
    #expect(summaries.count >= Int(time / 60) - 2)
    #expect(summaries.allSatisfy { $0.message.contains("still unreachable") && $0.level == .warning })
    #expect(summaries.first?.message.contains("failed attempts in") == true)
    let back = policy.connected(at: at(time + 5))
    // The outage began at the first failure, t = 1.
    #expect(
      back.message
        == "reconnected to Homebridge at ws://127.0.0.1:4050/ after 130 failed attempts, \(Int(time + 5 - 1)).0 s")
  }

  @Test func summaryCountsTheFailuresSinceTheLastLine() {
    var policy = ReconnectLogPolicy(endpoint: "ws://h:1/", detailedFailures: 1, summaryInterval: .seconds(60))
    #expect(policy.attemptFailed(at: at(0), reason: "r", retryIn: 1) != nil)
    for second in 1..<60 { #expect(policy.attemptFailed(at: at(Double(second)), reason: "r", retryIn: 1) == nil) }
    let summary = policy.attemptFailed(at: at(60), reason: "latest reason", retryIn: 1)
    #expect(
      summary?.message.contains("61 failed attempts in 60.0 s, 60 since the last report (latest: latest reason)")
        == true)
  }

  @Test func aLostConnectionIsOneWarningAndTheReconnectSaysHowLong() {
    var policy = ReconnectLogPolicy(endpoint: "ws://h:1/")
    #expect(policy.connected(at: at(0)).message == "connected to Homebridge at ws://h:1/")
    let lost = policy.connectionLost(at: at(100), reason: "connection to ws://h:1/ closed", retryIn: 0.5)
    #expect(lost.level == .warning)
    #expect(lost.message.contains("lost the connection to Homebridge at ws://h:1/"))
    _ = policy.attemptFailed(at: at(101), reason: "refused", retryIn: 1)
    #expect(
      policy.connected(at: at(102.5)).message == "reconnected to Homebridge at ws://h:1/ after 1 failed attempts, 2.5 s"
    )
    // The next outage starts from zero.
    #expect(policy.attemptFailed(at: at(200), reason: "refused", retryIn: 1)?.message.contains("(attempt 1)") == true)
  }
}
