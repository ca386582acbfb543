#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A time zone's offsets from UTC, and the mapping between wall-clock times and instants that
/// daylight-saving changes make ambiguous. Offsets come from the system's tz database
/// (/usr/share/zoneinfo, read by `TZifZone`), so they follow the distribution's tzdata
/// updates; where that database lacks a zone, from FoundationEssentials' `TimeZone`, which
/// without Foundation's ICU in the process knows no named zone (so the name is refused). The gap
/// and overlap rules are ours and pure arithmetic on those offsets.
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

  /// Where the offsets come from.
  public enum Source: Sendable {
    case tzDatabase(TZifZone)
    case foundation(TimeZone)
  }

  public let identifier: String
  public let source: Source

  public init(identifier: String, source: Source) {
    self.identifier = identifier
    self.source = source
  }

  /// A zone by tz database name ("Europe/Berlin"); nil when the name is unknown.
  public init?(identifier: String) {
    if let zone = TZifZone(identifier: identifier) {
      self.init(identifier: identifier, source: .tzDatabase(zone))
    } else if let zone = TimeZone(identifier: identifier) {
      self.init(identifier: identifier, source: .foundation(zone))
    } else {
      return nil
    }
  }

  /// The system's local zone: `TZ` if it names a zone, else /etc/localtime, else Foundation's.
  public static var system: ZoneRules {
    if let name = ProcessInfo.processInfo.environment["TZ"].map({ $0.hasPrefix(":") ? String($0.dropFirst()) : $0 }),
      !name.isEmpty
    {
      if let zone = ZoneRules(identifier: name) { return zone }
      if let rule = PosixZoneRule(name) {
        return ZoneRules(identifier: name, source: .tzDatabase(TZifZone(rule: rule)))
      }
    }
    if let data = FileManager.default.contents(atPath: "/etc/localtime"), let zone = TZifZone(data: [UInt8](data)) {
      // The name is the link's target below zoneinfo/, when it is a link.
      let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime")) ?? ""
      let name = target.firstRange(of: "zoneinfo/").map { String(target[$0.upperBound...]) } ?? "localtime"
      return ZoneRules(identifier: name, source: .tzDatabase(zone))
    }
    return ZoneRules(identifier: TimeZone.current.identifier, source: .foundation(TimeZone.current))
  }

  /// Seconds east of UTC at `instant`.
  public func offset(at instant: Int64) -> Int64 {
    switch source {
    case .tzDatabase(let zone): zone.offset(at: instant)
    case .foundation(let zone): Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
    }
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
