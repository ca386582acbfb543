import Foundation
import Synchronization

/// Wrong tokens at the login form, per client address: the first five are free, then each one
/// shuts that address out of the form for twice as long as the last (5 s, 10 s, ... 5 min),
/// the right token included while it lasts. A right token ends it. Without this, 500 guesses
/// took 11 s; now the first 50 take over three hours.
final class LoginThrottle: Sendable {
  static let freeFailures = 5
  static let longestWait: Duration = .seconds(300)
  /// Addresses remembered at most; the one whose last failure is oldest goes first.
  static let capacity = 10_000

  private struct Record {
    var failures = 0
    var blockedUntil: ContinuousClock.Instant
    var lastFailure: ContinuousClock.Instant
  }
  private let records = Mutex<[String: Record]>([:])

  /// How long `address` must still wait before its next try; nil when it may try now.
  func wait(for address: String) -> Duration? {
    let now = ContinuousClock.now
    return records.withLock { records in
      guard let record = records[address], record.blockedUntil > now else { return nil }
      return record.blockedUntil - now
    }
  }

  /// A wrong token from `address`; returns how long it is shut out now (nil: not yet).
  func failed(from address: String) -> Duration? {
    let now = ContinuousClock.now
    return records.withLock { records in
      if records[address] == nil, records.count >= Self.capacity,
        let oldest = records.min(by: { $0.value.lastFailure < $1.value.lastFailure })?.key
      {
        records.removeValue(forKey: oldest)
      }
      var record = records[address] ?? Record(blockedUntil: now, lastFailure: now)
      record.failures += 1
      record.lastFailure = now
      var blocked: Duration?
      if record.failures > Self.freeFailures {
        let doublings = min(record.failures - Self.freeFailures - 1, 20)
        let wait = min(Duration.seconds(5 << doublings), Self.longestWait)
        record.blockedUntil = now + wait
        blocked = wait
      }
      records[address] = record
      return blocked
    }
  }

  func succeeded(from address: String) { _ = records.withLock { $0.removeValue(forKey: address) } }
}
