/// Decides, for a moment in time, which triggers fire now, which occurrences were missed and
/// what to do about them, and when to look again. Pure: the caller passes the time, persists
/// `state` when a settlement says it changed, publishes the firings and arms a timer.
///
/// Every call settles each trigger's occurrences in `(handledThrough, now]`:
/// - one at most `onTime` seconds old fires (a timer that ran a little late, a small clock
///   step forward);
/// - older ones were missed (downtime, suspend, a large clock jump): with `catch_up = "once"`
///   the newest fires if it is no older than `max_late`, otherwise they are logged;
/// - a clock that went back never fires an occurrence again, since `handledThrough` only grows.
public struct SchedulePlanner: Sendable {
  /// How late a firing still counts as on time.
  public static let onTime: Int64 = 120
  /// The longest the caller should wait before settling again, even with no occurrence due:
  /// bounds how late a wall-clock jump forward is noticed (timers run on a monotonic clock).
  public static let recheck: Int64 = 60

  public struct Firing: Sendable, Equatable {
    public var trigger: String
    public var occurrence: Int64
    /// True when fired by `catch_up = "once"` after being missed.
    public var caughtUp: Bool

    public init(trigger: String, occurrence: Int64, caughtUp: Bool) {
      self.trigger = trigger
      self.occurrence = occurrence
      self.caughtUp = caughtUp
    }
  }

  public struct Note: Sendable, Equatable {
    public enum Level: Sendable { case info, warning }
    public var level: Level
    public var message: String

    public init(level: Level, message: String) {
      self.level = level
      self.message = message
    }
  }

  public struct Settlement: Sendable, Equatable {
    public var firings: [Firing] = []
    public var notes: [Note] = []
    /// The earliest next occurrence of any trigger; nil when none will fire again.
    public var nextOccurrence: Int64?
    /// Each trigger's next occurrence (absent: none).
    public var next: [String: Int64] = [:]
    /// Whether `state` must be saved before the firings are published.
    public var stateChanged = false

    /// When the caller should settle again.
    public func wake(now: Int64) -> Int64 { min(nextOccurrence ?? Int64.max, now + SchedulePlanner.recheck) }
  }

  public let triggers: [TriggerSpec]
  public let zone: ZoneRules
  public private(set) var state: ScheduleState
  /// Per trigger, the last day of a run of days without its sun event that was already logged.
  private var loggedPolarRun: [String: Int64] = [:]
  private var loggedFinished: Set<String> = []

  public init(triggers: [TriggerSpec], zone: ZoneRules, state: ScheduleState) {
    self.triggers = triggers
    self.zone = zone
    self.state = state
  }

  public mutating func settle(now: Int64) -> Settlement {
    var settlement = Settlement()
    for spec in triggers {
      settle(spec, now: now, into: &settlement)
    }
    // Forget triggers that are no longer configured.
    let names = Set(triggers.map(\.name))
    if state.triggers.keys.contains(where: { !names.contains($0) }) {
      state.triggers = state.triggers.filter { names.contains($0.key) }
      settlement.stateChanged = true
    }
    return settlement
  }

  private mutating func settle(_ spec: TriggerSpec, now: Int64, into settlement: inout Settlement) {
    let rule = spec.rule.description
    if let record = state.triggers[spec.name], record.rule == rule {
      if let first = spec.rule.next(after: record.handledThrough, in: zone).instant, first <= now {
        let fired = decide(spec, firstDue: first, handledThrough: record.handledThrough, now: now, into: &settlement)
        state.triggers[spec.name]?.handledThrough = now
        if let fired { state.triggers[spec.name]?.lastFired = fired }
        settlement.stateChanged = true
      }
    } else {
      // A new trigger (or a changed rule) has no history: nothing before now was missed, except
      // a one-shot time already past, which follows the catch-up policy like any missed time.
      var start = now
      if case .at(let time) = spec.rule { start = min(now, time.instant(in: zone) - 1) }
      state.triggers[spec.name] = ScheduleState.Trigger(handledThrough: start, rule: rule)
      settlement.stateChanged = true
      if start < now {
        settle(spec, now: now, into: &settlement)
        return
      }
    }
    let handled = state.triggers[spec.name]?.handledThrough ?? now
    let next = spec.rule.next(after: max(handled, now), in: zone)
    noteDaysWithoutEvent(spec, next, into: &settlement)
    if let instant = next.instant {
      settlement.next[spec.name] = instant
      settlement.nextOccurrence = min(settlement.nextOccurrence ?? instant, instant)
    } else if loggedFinished.insert(spec.name).inserted {
      settlement.notes.append(Note(level: .info, message: "\(spec.name) (\(rule)): no further occurrence"))
    }
  }

  /// Occurrences from `firstDue` to `now` are due: fire the newest if on time or caught up.
  /// Returns the occurrence fired, if any.
  private func decide(
    _ spec: TriggerSpec, firstDue: Int64, handledThrough: Int64, now: Int64, into settlement: inout Settlement
  ) -> Int64? {
    // Only the newest occurrence that could still fire matters; look for it in that window.
    let window = max(spec.maxLate, Self.onTime)
    var cursor = max(handledThrough, now - window - 1)
    var newest: Int64?
    var steps = 0
    while steps < 100_000, let next = spec.rule.next(after: cursor, in: zone).instant, next <= now {
      newest = next
      cursor = next
      steps += 1
    }
    let what = "\(spec.name) (\(spec.rule))"
    if let newest, now - newest <= Self.onTime {
      settlement.firings.append(Firing(trigger: spec.name, occurrence: newest, caughtUp: false))
      if firstDue < newest {
        settlement.notes.append(
          Note(level: .warning, message: "\(what): missed the occurrences from \(describe(firstDue)) while stopped"))
      }
      return newest
    } else if spec.catchUp == .once, let newest, now - newest <= spec.maxLate {
      settlement.firings.append(Firing(trigger: spec.name, occurrence: newest, caughtUp: true))
      settlement.notes.append(
        Note(
          level: .info,
          message:
            "\(what): catching up the occurrence of \(describe(newest)), \(DurationText.format(now - newest)) late"))
      return newest
    } else {
      let why =
        spec.catchUp == .skip
        ? "catch_up = \"skip\""
        : "older than max_late = \(DurationText.format(spec.maxLate))"
      let missed =
        if let newest {
          "missed the occurrence of \(describe(newest))"
            + (firstDue < newest ? " and earlier ones from \(describe(firstDue))" : "")
        } else {
          "missed the occurrences from \(describe(firstDue))"
        }
      settlement.notes.append(
        Note(
          level: .warning,
          message: "\(what): \(missed)"
            + " while stopped; not fired (\(why))"))
      return nil
    }
  }

  private mutating func noteDaysWithoutEvent(
    _ spec: TriggerSpec, _ next: SunSchedule.Next, into settlement: inout Settlement
  ) {
    guard case .sun(let sun) = spec.rule, let first = next.daysWithoutEvent.first,
      let last = next.daysWithoutEvent.last, loggedPolarRun[spec.name] != last.dayNumber
    else { return }
    loggedPolarRun[spec.name] = last.dayNumber
    let days = first == last ? "on \(Self.date(first))" : "from \(Self.date(first)) to \(Self.date(last))"
    let following = next.instant.map { "; next \(sun.event.rawValue) \(describe($0))" } ?? ""
    settlement.notes.append(
      Note(
        level: .info,
        message: "\(spec.name): no \(sun.event.rawValue) \(days) at latitude \(sun.latitude) "
          + "(the sun does not cross \(sun.event.altitude)° those days: polar day or night)\(following)"))
  }

  /// An instant as wall time in the zone, with its offset: "2026-03-29 03:00 +02:00".
  public func describe(_ instant: Int64) -> String {
    let offset = zone.offset(at: instant)
    let minutes = abs(offset) / 60
    func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(zone.localTime(at: instant)) \(offset < 0 ? "-" : "+")\(two(minutes / 60)):\(two(minutes % 60))"
  }

  /// An instant as ISO 8601 local time with its offset: "2026-03-29T03:00:00+02:00" (what the
  /// `next.NAME` ports carry).
  public func iso8601(_ instant: Int64) -> String {
    let offset = zone.offset(at: instant)
    let minutes = abs(offset) / 60
    let local = zone.localTime(at: instant)
    func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(Self.date(local))T\(two(Int64(local.hour))):\(two(Int64(local.minute))):\(two(Int64(local.second)))"
      + "\(offset < 0 ? "-" : "+")\(two(minutes / 60)):\(two(minutes % 60))"
  }

  static func date(_ day: LocalDateTime) -> String {
    String(day.description.prefix(10))
  }
}
