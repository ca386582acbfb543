import Foundation

/// The figures issue 19's goals are judged on, gathered as the sections run (nil: not run),
/// and the profile material that explains a miss.
struct GoalInputs {
  var hopP50: Double?
  var relayP50: Double?
  var socketpairP50: Double?
  var eventRate: Double?
  var socketpairRate: Double?
  var eventLost: Int?
  var hubCPUPerMessage: Double?
  var relayCPUPerMessage: Double?
  var mosquittoCPUPerMessage: Double?
  var cPluginRSS: Double?
  var cPluginLargest: String?
  var subscriberRSS: Double?
  var hubRSS: Double?
  var hubLargest: String?
  var mosquittoRSS: Double?
  var startupBundled: Double?
  var startupEmpty: Double?
  var hostSpawn: Double?
  var callgrind: CallgrindBenchmark.Result?

  func goals() -> [Goal] {
    [
      Goal(
        goal: "hop p50 <= 1.5x the raw C relay", limit: 1.5, atMost: true, ratio: ratio(hopP50, relayP50),
        note: [latencyLine(), profile()].compactMap { $0 }.joined(separator: "; ")),
      Goal(
        goal: "event throughput >= 0.5x the raw socketpair, 0 lost", limit: 0.5, atMost: false,
        ratio: ratio(eventRate, socketpairRate), condition: eventLost.map { $0 == 0 },
        note: [eventLost.map { "\($0) lost" }, cpuLine(), profile()].compactMap { $0 }.joined(separator: "; ")),
      Goal(
        goal: "hub CPU per message <= 0.5x mosquitto's", limit: 0.5, atMost: true,
        ratio: ratio(hubCPUPerMessage, mosquittoCPUPerMessage),
        note: [cpuLine(), profile()].compactMap { $0 }.joined(separator: "; ")),
      Goal(
        goal: "plugin host (C plugin) RSS <= 2x the C MQTT subscriber", limit: 2, atMost: true,
        ratio: ratio(cPluginRSS, subscriberRSS), note: cPluginLargest.map { "largest mappings: \($0)" }),
      Goal(
        goal: "hub RSS <= 1.5x mosquitto", limit: 1.5, atMost: true, ratio: ratio(hubRSS, mosquittoRSS),
        note: hubLargest.map { "largest mappings: \($0)" }),
      Goal(
        goal: "start-up with the 4 bundled plugins <= 1.5x the empty hub", limit: 1.5, atMost: true,
        ratio: ratio(startupBundled, startupEmpty),
        note: startupNote()),
    ]
  }

  private func ratio(_ value: Double?, _ base: Double?) -> Double? {
    guard let value, let base, base > 0 else { return nil }
    return value / base
  }

  /// The bare socketpair's p50 tells the machine's phase: a few µs normally; far above it,
  /// waking a process dominates every latency and their ratios say little.
  private func latencyLine() -> String? {
    guard let hop = hopP50, let relay = relayP50 else { return nil }
    var line = String(format: "hub %.1f µs, C relay %.1f µs", hop, relay)
    if let socketpair = socketpairP50 {
      line += String(format: ", bare socketpair %.1f µs", socketpair)
      if socketpair > 10 { line += " (a slow wake-up phase: the ratio is not evidence)" }
    }
    return line
  }

  private func cpuLine() -> String? {
    guard let hub = hubCPUPerMessage else { return nil }
    var parts = [String(format: "hub CPU %.2f µs/msg", hub * 1e6)]
    if let relay = relayCPUPerMessage { parts.append(String(format: "C relay %.2f", relay * 1e6)) }
    if let broker = mosquittoCPUPerMessage { parts.append(String(format: "mosquitto %.2f", broker * 1e6)) }
    return parts.joined(separator: ", ")
  }

  /// Where the hub's instructions go, from this run's callgrind section.
  private func profile() -> String? {
    guard let callgrind else { return "no instruction profile: run with --only callgrind" }
    let top = callgrind.hubTop.prefix(4).map { "\($0.name) \(String(format: "%.1f", $0.share)) %" }
    return String(
      format: "callgrind: the hub runs %.0f instructions per hop (C relay %.0f, user space only); its top functions: ",
      callgrind.hubPerHop, callgrind.relayPerHop) + top.joined(separator: ", ")
  }

  private func startupNote() -> String? {
    guard let bundled = startupBundled, let empty = startupEmpty else { return nil }
    var note = String(format: "%.1f ms more than the empty hub for 4 plugin processes", bundled - empty)
    if let hostSpawn { note += String(format: "; one plugin host's spawn-to-exit alone is %.1f ms", hostSpawn) }
    return note
  }
}
