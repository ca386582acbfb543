/// Durations as people write them in the config: "10 min", "-30 min", "1 h 30 min", "45 s",
/// "2 hours". Whole seconds.
public enum DurationText {
  static let units: [(names: [String], seconds: Int64)] = [
    (["s", "sec", "secs", "second", "seconds"], 1),
    (["m", "min", "mins", "minute", "minutes"], 60),
    (["h", "hr", "hrs", "hour", "hours"], 3600),
    (["d", "day", "days"], 86400),
  ]

  /// The seconds `text` stands for; throws a message saying what a duration looks like.
  public static func parse(_ text: String, allowNegative: Bool) throws(DurationError) -> Int64 {
    var rest = Substring(text.trimmingCharactersInSpaces())
    var sign: Int64 = 1
    if let first = rest.first, first == "-" || first == "+" {
      guard allowNegative || first == "+" else { throw DurationError(text, "must not be negative") }
      sign = first == "-" ? -1 : 1
      rest = rest.dropFirst()
    }
    var total: Int64 = 0
    var parts = 0
    while true {
      rest = rest.drop(while: { $0 == " " })
      guard !rest.isEmpty else { break }
      let digits = rest.prefix(while: \.isASCIIDigit)
      guard !digits.isEmpty, digits.count <= 9, let number = Int64(digits) else {
        throw DurationError(text, "is not a duration like \"10 min\", \"-30 min\" or \"1 h 30 min\"")
      }
      rest = rest.dropFirst(digits.count).drop(while: { $0 == " " })
      let unit = rest.prefix(while: \.isLetter)
      guard let seconds = units.first(where: { $0.names.contains(unit.lowercased()) })?.seconds else {
        throw DurationError(
          text,
          unit.isEmpty
            ? "needs a unit after \(number) (s, min, h or d)" : "has an unknown unit '\(unit)' (s, min, h or d)")
      }
      rest = rest.dropFirst(unit.count)
      total += number * seconds
      parts += 1
      // Far beyond any sensible schedule, and short of overflowing when summed.
      guard total <= 3650 * 86400 else { throw DurationError(text, "is longer than ten years") }
    }
    guard parts > 0 else { throw DurationError(text, "is empty; write a duration like \"10 min\"") }
    return sign * total
  }

  /// "1 h 30 min", "-30 min", "45 s"; "+" in front when `signed` and positive.
  public static func format(_ seconds: Int64, signed: Bool = false) -> String {
    var rest = abs(seconds)
    var parts: [String] = []
    for (name, size) in [("d", Int64(86400)), ("h", 3600), ("min", 60), ("s", 1)] where rest >= size {
      parts.append("\(rest / size) \(name)")
      rest %= size
    }
    let body = parts.isEmpty ? "0 s" : parts.joined(separator: " ")
    return seconds < 0 ? "-" + body : signed ? "+" + body : body
  }
}

/// A duration that could not be read, and why.
public struct DurationError: Error, Sendable, CustomStringConvertible {
  public var text: String
  public var problem: String
  init(_ text: String, _ problem: String) {
    self.text = text
    self.problem = problem
  }
  public var description: String { "'\(text)' \(problem)" }
}

extension Character {
  var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension String {
  func trimmingCharactersInSpaces() -> String {
    String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
  }
}
