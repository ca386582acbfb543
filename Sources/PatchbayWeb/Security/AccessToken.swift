import Foundation

/// The secret that opens the dashboard when it listens beyond loopback: read from a file (one
/// line; surrounding whitespace ignored), compared in constant time.
struct AccessToken: Sendable {
  private let secret: [UInt8]

  struct Unusable: Error, CustomStringConvertible {
    var description: String
  }

  init(file: String) throws(Unusable) {
    guard let data = FileManager.default.contents(atPath: file) else {
      throw Unusable(description: "cannot read the token file \(file)")
    }
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard text.count >= 16 else {
      throw Unusable(
        description: "the token in \(file) is too short: use at least 16 characters (e.g. openssl rand -hex 24)")
    }
    secret = Array(text.utf8)
  }

  /// Constant time in the candidate's content (its length only decides how long the loop runs).
  func matches(_ candidate: String) -> Bool {
    Self.constantTimeEqual(Array(candidate.utf8), secret)
  }

  static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
    for index in 0..<max(a.count, b.count) {
      let left = index < a.count ? a[index] : 0
      let right = index < b.count ? b[index] : 0
      difference |= left ^ right
    }
    return difference == 0
  }
}
