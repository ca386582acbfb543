/// One of the five fields of a cron expression: which values it allows, and whether it was
/// restricted at all (a `*` matters for the day-of-month / day-of-week rule).
public struct CronField: Sendable, Hashable {
  public enum Kind: Int, Sendable, CaseIterable {
    case minute, hour, dayOfMonth, month, dayOfWeek

    public var name: String {
      switch self {
      case .minute: "minute"
      case .hour: "hour"
      case .dayOfMonth: "day-of-month"
      case .month: "month"
      case .dayOfWeek: "day-of-week"
      }
    }

    /// Allowed numbers (day-of-week also takes 7 for Sunday).
    public var range: ClosedRange<Int> {
      switch self {
      case .minute: 0...59
      case .hour: 0...23
      case .dayOfMonth: 1...31
      case .month: 1...12
      case .dayOfWeek: 0...7
      }
    }

    /// Names accepted in place of numbers, lowercase, mapped to their number.
    var names: [String: Int] {
      switch self {
      case .month:
        Dictionary(
          uniqueKeysWithValues: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
            .enumerated().map { ($1, $0 + 1) })
      case .dayOfWeek:
        Dictionary(
          uniqueKeysWithValues: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"].enumerated().map { ($1, $0) })
      default: [:]
      }
    }
  }

  public let kind: Kind
  /// Bit n set: value n allowed.
  public let values: UInt64
  /// False for `*` (or `*/1`): every value.
  public let isRestricted: Bool

  public func contains(_ value: Int) -> Bool { values & (1 << UInt64(value)) != 0 }

  /// The allowed values, ascending.
  public var sortedValues: [Int] { kind.range.filter(contains) }

  /// Parses one field: `*`, `N`, `A-B`, any of those with `/STEP`, and comma lists of them.
  public init(_ text: String, kind: Kind) throws(CronError) {
    self.kind = kind
    guard !text.isEmpty else { throw CronError(kind, text, "is empty") }
    var values: UInt64 = 0
    var restricted = false
    for item in text.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
      let (set, everything) = try Self.parseItem(String(item), kind: kind, field: text)
      values |= set
      restricted = restricted || !everything
    }
    if kind == .dayOfWeek, values & (1 << 7) != 0 {
      // 7 is Sunday too.
      values = (values | 1) & ~(1 << 7)
    }
    self.values = values
    isRestricted = restricted
  }

  private static func parseItem(_ item: String, kind: Kind, field: String) throws(CronError) -> (UInt64, Bool) {
    guard !item.isEmpty else { throw CronError(kind, field, "has an empty list entry") }
    let parts = item.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count <= 2 else { throw CronError(kind, field, "has more than one '/' in '\(item)'") }
    var step = 1
    if parts.count == 2 {
      guard let number = Int(parts[1]), number > 0 else {
        throw CronError(kind, field, "step '\(parts[1])' in '\(item)' must be a whole number above 0")
      }
      step = number
    }
    let base = String(parts[0])
    var low = kind.range.lowerBound
    // `*` in day-of-week is 0-6: 7 is only another name for Sunday.
    var high = kind == .dayOfWeek ? 6 : kind.range.upperBound
    var everything = step == 1
    if base != "*" {
      let bounds = base.split(separator: "-", omittingEmptySubsequences: false)
      guard bounds.count <= 2 else { throw CronError(kind, field, "range '\(base)' has more than one '-'") }
      low = try value(String(bounds[0]), kind: kind, field: field)
      if bounds.count == 2 {
        high = try value(String(bounds[1]), kind: kind, field: field)
        guard low <= high else {
          throw CronError(kind, field, "range '\(base)' runs backwards (\(low) is after \(high))")
        }
      } else {
        // `N/STEP` means from N to the end of the range, as in Vixie cron.
        high = parts.count == 2 ? kind.range.upperBound : low
      }
      everything = false
    }
    var set: UInt64 = 0
    for number in stride(from: low, through: high, by: step) { set |= 1 << UInt64(number) }
    return (set, everything)
  }

  private static func value(_ text: String, kind: Kind, field: String) throws(CronError) -> Int {
    if let named = kind.names[text] { return named }
    guard let number = Int(text), text.allSatisfy(\.isNumber) else {
      let names = kind.names.isEmpty ? "" : " or a name like \(kind == .month ? "jan" : "mon")"
      throw CronError(kind, field, "'\(text)' is not a number\(names)")
    }
    guard kind.range.contains(number) else {
      throw CronError(kind, field, "\(number) is out of range \(kind.range.lowerBound)-\(kind.range.upperBound)")
    }
    return number
  }
}
