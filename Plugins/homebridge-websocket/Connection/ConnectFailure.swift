import NIOCore
import NIOPosix

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A failed TCP connect in a few words for the log ("Connection refused"), instead of NIO's
/// full error tree: while Homebridge is away this text ends every failure line.
enum ConnectFailure {
  static func describe(_ error: any Error) -> String {
    if let failure = error as? NIOConnectionError {
      if let dns = failure.dnsAError ?? failure.dnsAAAAError { return "cannot resolve \(failure.host): \(dns)" }
      // One reason per address tried (IPv4, IPv6), each said once.
      var reasons: [String] = []
      for attempt in failure.connectionErrors {
        let reason = (attempt.error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(attempt.error)"
        if !reasons.contains(reason) { reasons.append(reason) }
      }
      if !reasons.isEmpty { return reasons.joined(separator: ", ") }
    }
    if case .connectTimeout(let timeout) = error as? ChannelError {
      return "no answer within \(timeout.nanoseconds / 1_000_000_000) s"
    }
    return "\(error)"
  }
}
