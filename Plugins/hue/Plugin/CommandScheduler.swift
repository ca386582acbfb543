import HueProtocol
import PatchbayPluginKit

/// Decides which command goes to the bridge when, without any I/O (times are seconds of a
/// monotonic clock), so its rules are tested directly:
///
/// - Coalescing: per target only the newest state matters; a command that arrives while an
///   older one waits is merged into it (newer fields win), so nothing queues up behind a slow
///   bridge.
/// - Rates: group commands at most `groupRate` per second, light commands at most `lightRate`,
///   evenly spaced, counted so that delays on the way never show the bridge more (see
///   `CommandBudget`).
/// - At most `maxInFlight` requests at once, and one per target (the bridge then applies a
///   target's commands in order).
/// - Order: a group command strips the fields it sets from its members' older waiting commands;
///   a member's newer command waits for an older group command, which would otherwise undo it.
/// - No popcorn: when every member of a bridge group waits with the same change, one group
///   action replaces the light commands.
/// - Failures: the command goes back (merged under anything newer) and everything waits with
///   back-off; nothing is dropped.
struct CommandScheduler: Sendable {
  struct Limits: Sendable {
    var groupRate = 1.0
    var lightRate = 10.0
    var maxInFlight = 3
    var retryMaxSeconds = 10.0
    /// A light command waits this long after arrival for its siblings, so a group's members
    /// set to one value in a row become one group action.
    var gatherSeconds = 0.02
  }

  struct Dispatch: Sendable, Hashable {
    var id: Int
    var target: CommandTarget
    var change: HueStateChange
    /// Sequence number of the newest update this dispatch carries.
    var sequence: Int
  }

  private struct Waiting: Sendable {
    var change: HueStateChange
    var sequence: Int
    var arrival: Double
  }

  let limits: Limits
  private var waiting: [CommandTarget: Waiting] = [:]
  private var inFlight: [Int: Dispatch] = [:]
  /// Per kind: true for group commands, false for light commands.
  private var budgets: [Bool: CommandBudget]
  private var nextSequence = 0
  private var nextID = 0
  private var retryAt = 0.0
  private var backoff: RetryBackoff
  /// Bridge group id -> member light ids, as last read from the bridge.
  private(set) var groupMembers: [String: Set<String>] = [:]

  init(limits: Limits) {
    self.limits = limits
    backoff = RetryBackoff(maximum: limits.retryMaxSeconds)
    budgets = [true: CommandBudget(rate: limits.groupRate), false: CommandBudget(rate: limits.lightRate)]
  }

  var waitingCount: Int { waiting.count }

  /// Seconds between two commands of a kind.
  func interval(group: Bool) -> Double { budgets[group]!.spacing }

  mutating func setGroupMembers(_ members: [String: Set<String>]) { groupMembers = members }

  /// Takes a new command for `target`.
  mutating func submit(_ change: HueStateChange, to target: CommandTarget, now: Double) {
    guard !change.isEmpty else { return }
    nextSequence += 1
    if case .group(let id) = target {
      for light in groupMembers[id] ?? [] {
        guard let older = waiting[.light(light)] else { continue }
        let rest = older.change.removing(change)
        if rest.isEmpty { waiting[.light(light)] = nil } else { waiting[.light(light)]?.change = rest }
      }
    }
    if var existing = waiting[target] {
      // The merged command is as new as its newest part: it must not overtake a group
      // command that came between.
      existing.change = existing.change.followed(by: change)
      existing.sequence = nextSequence
      waiting[target] = existing
    } else {
      waiting[target] = Waiting(change: change, sequence: nextSequence, arrival: now)
    }
  }

  /// The next request to send now, if any; call until nil. `busy` counts other requests
  /// (polls) sharing the in-flight limit.
  mutating func nextDispatch(now: Double, busy: Int = 0) -> Dispatch? {
    guard now >= retryAt, inFlight.count + busy < limits.maxInFlight else { return nil }
    if groupReady(now: now), let merged = popcornFreeGroup(now: now) {
      return dispatch(.group(merged.group), merged.waiting, now: now)
    }
    let candidates = waiting.filter { eligible($0.key, $0.value, now: now) }
    guard let (target, entry) = candidates.min(by: { $0.value.sequence < $1.value.sequence }) else { return nil }
    waiting[target] = nil
    return dispatch(target, entry, now: now)
  }

  /// When something waiting may become sendable (nil: nothing waits, or only on replies).
  func nextWakeup(now: Double) -> Double? {
    guard !waiting.isEmpty else { return nil }
    if now < retryAt { return retryAt }
    var earliest: Double?
    for (target, entry) in waiting where !blockedByInFlight(target, entry) {
      guard var time = budgets[target.isGroup]!.nextTime(after: now) else { continue }
      if !target.isGroup { time = max(time, entry.arrival + limits.gatherSeconds) }
      earliest = min(earliest ?? time, time)
    }
    return earliest.map { max($0, now) }
  }

  /// The bridge answered `dispatch` (per-attribute errors included: they are not retried).
  mutating func delivered(_ dispatch: Dispatch, now: Double) {
    inFlight[dispatch.id] = nil
    budgets[dispatch.target.isGroup]!.answered(now: now)
    backoff.reset()
  }

  /// The request failed on the way (refused, timeout, 429, 503): it waits again under
  /// anything newer, and nothing is sent before the back-off delay. Returns that delay.
  @discardableResult
  mutating func failed(_ dispatch: Dispatch, now: Double) -> Double {
    inFlight[dispatch.id] = nil
    budgets[dispatch.target.isGroup]!.answered(now: now)
    if let newer = waiting[dispatch.target] {
      waiting[dispatch.target] = Waiting(
        change: dispatch.change.followed(by: newer.change), sequence: newer.sequence,
        arrival: min(now, newer.arrival))
    } else {
      waiting[dispatch.target] = Waiting(change: dispatch.change, sequence: dispatch.sequence, arrival: now)
    }
    let delay = backoff.next()
    retryAt = max(retryAt, now + delay)
    return delay
  }

  /// The bridge answered something (a poll): retry waiting commands at once.
  mutating func bridgeAnswered(now: Double) {
    backoff.reset()
    retryAt = min(retryAt, now)
  }

  // MARK: Rules

  private func groupReady(now: Double) -> Bool {
    budgets[true]!.allows(now: now)
  }

  private func eligible(_ target: CommandTarget, _ entry: Waiting, now: Double) -> Bool {
    guard budgets[target.isGroup]!.allows(now: now) else { return false }
    if !target.isGroup && now < entry.arrival + limits.gatherSeconds { return false }
    return !blockedByInFlight(target, entry)
  }

  /// One request per target at a time; and a light waits for an older group command of its own.
  private func blockedByInFlight(_ target: CommandTarget, _ entry: Waiting) -> Bool {
    if inFlight.values.contains(where: { $0.target == target }) { return true }
    guard case .light(let light) = target else { return false }
    let olderGroups =
      waiting.filter { $0.key.isGroup && $0.value.sequence < entry.sequence }.map(\.key)
      + inFlight.values.filter { $0.target.isGroup && $0.sequence < entry.sequence }.map(\.target)
    return olderGroups.contains { group in
      if case .group(let id) = group { groupMembers[id]?.contains(light) ?? false } else { false }
    }
  }

  /// A bridge group whose members all wait with the same change, merged into one group command.
  private mutating func popcornFreeGroup(now: Double) -> (group: String, waiting: Waiting)? {
    for (id, members) in groupMembers.sorted(by: { $0.key < $1.key }) where members.count > 1 {
      guard waiting[.group(id)] == nil, !inFlight.values.contains(where: { $0.target == .group(id) }) else { continue }
      let entries = members.compactMap { waiting[.light($0)] }
      guard entries.count == members.count, let first = entries.first,
        entries.allSatisfy({ $0.change == first.change }),
        members.allSatisfy({ light in !inFlight.values.contains { $0.target == .light(light) } })
      else { continue }
      for light in members { waiting[.light(light)] = nil }
      let sequence = entries.map(\.sequence).min() ?? first.sequence
      return (id, Waiting(change: first.change, sequence: sequence, arrival: entries.map(\.arrival).min() ?? now))
    }
    return nil
  }

  private mutating func dispatch(_ target: CommandTarget, _ entry: Waiting, now: Double) -> Dispatch {
    nextID += 1
    let dispatch = Dispatch(id: nextID, target: target, change: entry.change, sequence: entry.sequence)
    inFlight[dispatch.id] = dispatch
    budgets[target.isGroup]!.sent(now: now)
    return dispatch
  }
}
