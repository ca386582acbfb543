import Foundation

/// A time zone's offsets from UTC, and the mapping between wall-clock times and instants that
/// daylight-saving changes make ambiguous. Offsets come from Foundation's `TimeZone` (the tz
/// database); the gap and overlap rules are ours and pure arithmetic on those offsets.
///
/// Instants are whole seconds since 1970-01-01 00:00 UTC.
public struct ZoneRules: Sendable {
  /// Where a wall-clock time falls.
  public enum Resolution: Sendable, Equatable {
    /// An ordinary time: one instant.
    case unique(Int64)
    /// A time that happens twice when clocks fall back: both instants, earlier first.
    case repeated(Int64, Int64)
    /// A time skipped when clocks spring forward: the first instant after the gap.
    case skipped(gapEnd: Int64)

    /// The instant a schedule uses: the first occurrence, or the end of a gap.
    public var instant: Int64 {
      switch self {
      case .unique(let instant), .repeated(let instant, _): instant
      case .skipped(let gapEnd): gapEnd
      }
    }
  }

  public let zone: TimeZone
  public var identifier: String { zone.identifier }

  public init(_ zone: TimeZone) { self.zone = zone }

  /// A zone by tz database name ("Europe/Berlin"); nil when the name is unknown.
  public init?(identifier: String) {
    guard let zone = TimeZone(identifier: identifier) else { return nil }
    self.zone = zone
  }

  /// The system's local zone: `TZ`, else /etc/localtime.
  public static var system: ZoneRules { ZoneRules(TimeZone.current) }

  /// Seconds east of UTC at `instant`.
  public func offset(at instant: Int64) -> Int64 {
    Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
  }

  /// The wall-clock time at `instant`.
  public func localTime(at instant: Int64) -> LocalDateTime {
    LocalDateTime(localSeconds: instant + offset(at: instant))
  }

  /// Where a wall-clock time falls in this zone.
  public func resolve(_ local: LocalDateTime) -> Resolution {
    let wall = local.localSeconds
    // Offsets a day either side bracket any single transition near this time.
    let before = offset(at: wall - 86400)
    let after = offset(at: wall + 86400)
    var candidates = Set([before, after, offset(at: wall - before), offset(at: wall - after)])
      .map { wall - $0 }
      .filter { offset(at: $0) == wall - $0 }
    candidates = Array(Set(candidates)).sorted()
    switch candidates.count {
    case 0:
      return .skipped(gapEnd: transition(from: wall - max(before, after), to: wall - min(before, after)))
    case 1: return .unique(candidates[0])
    default: return .repeated(candidates[0], candidates[candidates.count - 1])
    }
  }

  /// The first instant in `(low, high]` whose offset differs from the offset at `low`.
  func transition(from low: Int64, to high: Int64) -> Int64 {
    let start = offset(at: low)
    var low = low
    var high = high
    while high - low > 1 {
      let middle = low + (high - low) / 2
      if offset(at: middle) == start { low = middle } else { high = middle }
    }
    return high
  }
}
