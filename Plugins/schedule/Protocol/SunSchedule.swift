/// When a sun event (plus an offset) next happens at a place, day by day in a zone.
public struct SunSchedule: Sendable, Hashable, CustomStringConvertible {
  /// The next occurrence, and the days before it on which the sun never reached the event's
  /// altitude (polar day or night), so the caller can say why it waits so long.
  public struct Next: Sendable, Equatable {
    public var instant: Int64?
    public var daysWithoutEvent: [LocalDateTime]
  }

  public let event: SunEvent
  public let offsetSeconds: Int64
  public let latitude: Double
  public let longitude: Double

  public init(event: SunEvent, offsetSeconds: Int64 = 0, latitude: Double, longitude: Double) {
    self.event = event
    self.offsetSeconds = offsetSeconds
    self.latitude = latitude
    self.longitude = longitude
  }

  public var description: String {
    offsetSeconds == 0 ? event.rawValue : "\(event.rawValue) \(DurationText.format(offsetSeconds, signed: true))"
  }

  /// The event's instant on a local date (a day number of that date) in `zone`, without the
  /// offset: the event of the solar day whose noon is nearest to that date's local noon.
  public func eventInstant(onDay dayNumber: Int64, in zone: ZoneRules) -> Int64? {
    let localNoon = dayNumber * 86400 + 43200
    let zoneOffset = zone.offset(at: localNoon - zone.offset(at: localNoon))
    // Solar noon on UTC day n is about n·86400 + 43200 - 240·longitude seconds.
    let solarDay = dayNumber + Int64(((240 * longitude - Double(zoneOffset)) / 86400).rounded())
    return SolarCalculator(latitude: latitude, longitude: longitude)
      .crossing(event.crossing, altitude: event.altitude, onDay: solarDay)
      .map { Int64($0.rounded()) }
  }

  /// The first occurrence strictly after `instant`, looking a year ahead.
  public func next(after instant: Int64, in zone: ZoneRules) -> Next {
    // Offsets of up to a day move an occurrence onto a neighbouring date: start two days back.
    let startDay = zone.localTime(at: instant).dayNumber
    let firstDay = startDay - 2 - max(0, offsetSeconds / 86400)
    var missing: [LocalDateTime] = []
    for day in firstDay..<(firstDay + 370) {
      guard let at = eventInstant(onDay: day, in: zone) else {
        let date = LocalDateTime.civil(fromDays: day)
        if day >= startDay { missing.append(LocalDateTime(date.year, date.month, date.day)) }
        continue
      }
      if at + offsetSeconds > instant {
        return Next(instant: at + offsetSeconds, daysWithoutEvent: missing)
      }
      missing = []
    }
    return Next(instant: nil, daysWithoutEvent: missing)
  }
}
