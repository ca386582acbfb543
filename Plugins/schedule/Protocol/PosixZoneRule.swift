/// The POSIX TZ rule at the end of a TZif file ("CET-1CEST,M3.5.0,M10.5.0/3"), which gives the
/// offsets after the file's last listed transition. Note POSIX's sign: "CET-1" is UTC+1.
public struct PosixZoneRule: Sendable, Equatable {
  /// A transition date in a year: `Mm.w.d` (weekday d of week w, 5 = last, of month m),
  /// `Jn` (day n of 1…365, never counting 29 February) or `n` (day n of 0…365).
  enum DateRule: Sendable, Equatable {
    case monthWeekDay(month: Int, week: Int, weekday: Int)
    case julianWithoutLeapDay(Int)
    case zeroBasedDay(Int)

    /// Days since 1970 of this date in `year`.
    func day(in year: Int) -> Int64 {
      switch self {
      case .monthWeekDay(let month, let week, let weekday):
        let first = LocalDateTime.days(year: year, month: month, day: 1)
        var day = 1 + (weekday - LocalDateTime.weekday(ofDay: first) + 7) % 7 + (week - 1) * 7
        while day > LocalDateTime.daysInMonth(month, year: year) { day -= 7 }
        return first + Int64(day - 1)
      case .julianWithoutLeapDay(let n):
        let leapShift = LocalDateTime.isLeapYear(year) && n >= 60 ? 1 : 0
        return LocalDateTime.days(year: year, month: 1, day: 1) + Int64(n - 1 + leapShift)
      case .zeroBasedDay(let n):
        return LocalDateTime.days(year: year, month: 1, day: 1) + Int64(n)
      }
    }
  }

  struct Transition: Sendable, Equatable {
    var date: DateRule
    /// Seconds after local midnight (may be negative or beyond a day, RFC 8536).
    var time: Int64
  }

  /// Seconds east of UTC.
  let standardOffset: Int64
  let daylightOffset: Int64?
  let start: Transition?
  let end: Transition?

  /// Seconds east of UTC at `instant`.
  public func offset(at instant: Int64) -> Int64 {
    guard let daylightOffset, let start, let end else { return standardOffset }
    let year = LocalDateTime(localSeconds: instant + standardOffset).year
    // Daylight time starts at a wall time in standard time and ends at one in daylight time.
    let begins = start.date.day(in: year) * 86400 + start.time - standardOffset
    let ends = end.date.day(in: year) * 86400 + end.time - daylightOffset
    let daylight = begins < ends ? (begins <= instant && instant < ends) : (instant < ends || instant >= begins)
    return daylight ? daylightOffset : standardOffset
  }

  /// Parses a TZ string; nil when it is not one this reader understands.
  public init?(_ text: String) {
    var scanner = Scanner(Array(text.utf8))
    guard scanner.name(), let standard = scanner.offset() else { return nil }
    standardOffset = -standard
    if scanner.atEnd {
      daylightOffset = nil
      start = nil
      end = nil
      return
    }
    guard scanner.name() else { return nil }
    if let daylight = scanner.offset() {
      daylightOffset = -daylight
    } else {
      daylightOffset = standardOffset + 3600
    }
    // Without a rule, POSIX's default is the US rule of 2007.
    guard !scanner.atEnd else {
      start = Transition(date: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7200)
      end = Transition(date: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7200)
      return
    }
    guard scanner.take(UInt8(ascii: ",")), let start = scanner.transition(), scanner.take(UInt8(ascii: ",")),
      let end = scanner.transition(), scanner.atEnd
    else { return nil }
    self.start = start
    self.end = end
  }

  /// Reads a TZ string's parts.
  struct Scanner {
    let bytes: [UInt8]
    var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func take(_ byte: UInt8) -> Bool {
      guard current == byte else { return false }
      index += 1
      return true
    }

    /// `CET` (three or more letters) or `<+0330>` (quoted).
    mutating func name() -> Bool {
      if take(UInt8(ascii: "<")) {
        guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")), close > index else { return false }
        index = close + 1
        return true
      }
      let start = index
      while let byte = current, (65...90).contains(byte) || (97...122).contains(byte) { index += 1 }
      return index - start >= 3
    }

    mutating func number() -> Int64? {
      let start = index
      var value: Int64 = 0
      while let byte = current, (48...57).contains(byte), index - start < 4 {
        value = value * 10 + Int64(byte - 48)
        index += 1
      }
      return index > start ? value : nil
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, with POSIX's sign.
    mutating func offset() -> Int64? {
      var sign: Int64 = 1
      if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
      guard let hours = number() else { return nil }
      var seconds = hours * 3600
      if take(UInt8(ascii: ":")) {
        guard let minutes = number() else { return nil }
        seconds += minutes * 60
        if take(UInt8(ascii: ":")) {
          guard let rest = number() else { return nil }
          seconds += rest
        }
      }
      return sign * seconds
    }

    mutating func transition() -> Transition? {
      let date: DateRule
      if take(UInt8(ascii: "M")) {
        guard let month = number(), take(UInt8(ascii: ".")), let week = number(), take(UInt8(ascii: ".")),
          let weekday = number(), (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday)
        else { return nil }
        date = .monthWeekDay(month: Int(month), week: Int(week), weekday: Int(weekday))
      } else if take(UInt8(ascii: "J")) {
        guard let day = number(), (1...365).contains(day) else { return nil }
        date = .julianWithoutLeapDay(Int(day))
      } else {
        guard let day = number(), (0...365).contains(day) else { return nil }
        date = .zeroBasedDay(Int(day))
      }
      var time: Int64 = 7200
      if take(UInt8(ascii: "/")) {
        // A transition time's sign is its own (RFC 8536: -167 to 167 hours), not POSIX's inverse.
        guard let given = offset() else { return nil }
        time = given
      }
      return Transition(date: date, time: time)
    }
  }
}
