import Foundation
import Synchronization

/// Where the recorder reads the time (unix seconds): the system's, or one a test or the
/// benchmark moves by hand to simulate days in seconds.
public protocol HistoryClock: Sendable {
  func now() -> Double
}

public struct SystemHistoryClock: HistoryClock {
  public init() {}
  public func now() -> Double { Date().timeIntervalSince1970 }
}

/// A clock that moves only when told.
public final class ManualHistoryClock: HistoryClock {
  private let time: Mutex<Double>

  public init(start: Double) { time = Mutex(start) }

  public func now() -> Double { time.withLock { $0 } }

  public func advance(by seconds: Double) { time.withLock { $0 += seconds } }
}
