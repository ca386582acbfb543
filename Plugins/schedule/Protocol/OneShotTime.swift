/// The time of a one-shot `at` trigger, in RFC 3339 / ISO 8601 form: with an offset it is an
/// instant ("2026-11-24T12:00:05+01:00", "…Z"); without one it is a wall-clock time in the
/// instance's zone ("2026-11-24T12:00" or "2026-11-24 12:00:05"), placed by the same
/// daylight-saving rules as cron.
public struct OneShotTime: Sendable, Hashable, CustomStringConvertible {
  public let local: LocalDateTime
  /// Seconds east of UTC when the text gave an offset.
  public let offset: Int64?
  public let description: String

  public init(_ text: String) throws(OneShotTimeError) {
    description = text
    let chars = Array(text)
    var index = 0
    func number(_ count: Int, _ what: String) throws(OneShotTimeError) -> Int {
      guard index + count <= chars.count, chars[index..<(index + count)].allSatisfy(\.isASCIIDigit),
        let value = Int(String(chars[index..<(index + count)]))
      else { throw OneShotTimeError(text, "has no \(what) where expected") }
      index += count
      return value
    }
    func expect(_ separators: Set<Character>, _ what: String) throws(OneShotTimeError) {
      guard index < chars.count, separators.contains(chars[index]) else {
        throw OneShotTimeError(text, "needs \(what) at position \(index + 1)")
      }
      index += 1
    }
    let year = try number(4, "year")
    try expect(["-"], "'-'")
    let month = try number(2, "month")
    try expect(["-"], "'-'")
    let day = try number(2, "day")
    try expect(["T", "t", " "], "'T' between date and time")
    let hour = try number(2, "hour")
    try expect([":"], "':'")
    let minute = try number(2, "minute")
    var second = 0
    if index < chars.count, chars[index] == ":" {
      index += 1
      second = try number(2, "second")
      if index < chars.count, chars[index] == "." {
        // Fractions of a second are accepted and dropped: triggers fire on whole seconds.
        index += 1
        while index < chars.count, chars[index].isASCIIDigit { index += 1 }
      }
    }
    guard (1...12).contains(month), (1...LocalDateTime.daysInMonth(month, year: year)).contains(day),
      (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
    else { throw OneShotTimeError(text, "is not a real date and time") }
    local = LocalDateTime(year, month, day, hour, minute, second)
    if index == chars.count {
      offset = nil
    } else if chars[index] == "Z" || chars[index] == "z" {
      index += 1
      offset = 0
    } else {
      let sign: Int64 = chars[index] == "-" ? -1 : 1
      try expect(["+", "-"], "'Z' or an offset like +01:00")
      let hours = try number(2, "offset hours")
      try expect([":"], "':' in the offset")
      let minutes = try number(2, "offset minutes")
      guard hours <= 18, minutes <= 59 else { throw OneShotTimeError(text, "has an impossible offset") }
      offset = sign * Int64(hours * 3600 + minutes * 60)
    }
    guard index == chars.count else { throw OneShotTimeError(text, "has extra text after the time") }
  }

  /// The instant: the given offset, else the wall time placed in `zone`.
  public func instant(in zone: ZoneRules) -> Int64 {
    if let offset { return local.localSeconds - offset }
    return zone.resolve(local).instant
  }
}

/// An `at` time that could not be read, and why.
public struct OneShotTimeError: Error, Sendable, CustomStringConvertible {
  public var text: String
  public var problem: String
  init(_ text: String, _ problem: String) {
    self.text = text
    self.problem = problem
  }
  public var description: String {
    "'\(text)' \(problem); write a time like \"2026-11-24T18:00:00+01:00\" or \"2026-11-24T18:00\" (in time_zone)"
  }
}
