/// When a trigger fires: a cron expression, a sun event with an offset, or one instant.
public enum TriggerRule: Sendable, Hashable, CustomStringConvertible {
  case cron(CronExpression)
  case sun(SunSchedule)
  case at(OneShotTime)

  /// The first occurrence strictly after `instant` in `zone`, with the days on which the sun
  /// event did not happen on the way (polar day or night); nil when there is none.
  public func next(after instant: Int64, in zone: ZoneRules) -> SunSchedule.Next {
    switch self {
    case .cron(let cron): SunSchedule.Next(instant: cron.nextOccurrence(after: instant, in: zone), daysWithoutEvent: [])
    case .sun(let sun): sun.next(after: instant, in: zone)
    case .at(let time):
      SunSchedule.Next(instant: time.instant(in: zone) > instant ? time.instant(in: zone) : nil, daysWithoutEvent: [])
    }
  }

  /// How the rule reads in logs and port descriptions; also what the saved state remembers, so
  /// a changed rule does not inherit the old one's history.
  public var description: String {
    switch self {
    case .cron(let cron): "cron \(cron)"
    case .sun(let sun): "sun \(sun)"
    case .at(let time): "at \(time)"
    }
  }
}
