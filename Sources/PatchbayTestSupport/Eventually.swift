import Foundation

/// Thrown when a condition did not become true before its deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible {
  public var description: String
}

/// Polls `condition` until it is true or `seconds` pass. Tests wait for conditions with
/// generous deadlines instead of sleeping and hoping (these machines are shared and slow: a full
/// run beside other builds reached a load of 23 on 2 cores). A condition that holds costs no
/// more for a long deadline; only a failure waits it out.
public func eventually(
  _ what: @autoclosure () -> String, within seconds: Double = 300, pollEvery interval: Double = 0.05,
  _ condition: () throws -> Bool
) throws {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if try condition() { return }
    Thread.sleep(forTimeInterval: interval)
  }
  if try condition() { return }
  throw DeadlineExceeded(description: "not within \(seconds) s: \(what())")
}
