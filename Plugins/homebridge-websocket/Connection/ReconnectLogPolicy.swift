import HomebridgeProtocol

/// What the client logs while Homebridge is away, so an outage of hours costs a few lines:
/// one line for each of the first failed attempts, then a summary with the count at most
/// once per `summaryInterval`, and one line when the connection is back. Pure: the caller
/// passes the time of each event.
public struct ReconnectLogPolicy: Sendable {
  public struct Line: Sendable, Hashable, CustomStringConvertible {
    public var level: ClientSession.LogLevel
    public var message: String
    public var description: String { "\(level): \(message)" }
  }

  public let endpoint: String
  /// Failed attempts in a row that each get their own line.
  public let detailedFailures: Int
  public let summaryInterval: Duration

  private var outageStart: ContinuousClock.Instant?
  private var failures = 0
  private var failuresSinceLastLine = 0
  private var lastLineAt: ContinuousClock.Instant?

  public init(endpoint: String, detailedFailures: Int = 3, summaryInterval: Duration = .seconds(60)) {
    self.endpoint = endpoint
    self.detailedFailures = detailedFailures
    self.summaryInterval = summaryInterval
  }

  /// An open connection ended; the outage starts now.
  public mutating func connectionLost(at now: ContinuousClock.Instant, reason: String, retryIn delay: Double) -> Line {
    outageStart = now
    failures = 0
    failuresSinceLastLine = 0
    lastLineAt = now
    return Line(
      level: .warning,
      message: "lost the connection to Homebridge at \(endpoint) (\(reason)); reconnecting in \(Self.seconds(delay))")
  }

  /// An attempt to connect failed; nil when this one is only counted.
  public mutating func attemptFailed(at now: ContinuousClock.Instant, reason: String, retryIn delay: Double) -> Line? {
    if outageStart == nil { outageStart = now }
    failures += 1
    failuresSinceLastLine += 1
    if failures <= detailedFailures {
      lastLineAt = now
      failuresSinceLastLine = 0
      let more =
        failures == detailedFailures ? "; further failures are summarised every \(Self.seconds(summaryInterval))" : ""
      return Line(
        level: failures == 1 ? .warning : .info,
        message: "\(reason); retrying in \(Self.seconds(delay)) (attempt \(failures))\(more)")
    }
    guard let lastLineAt, now - lastLineAt >= summaryInterval else { return nil }
    self.lastLineAt = now
    let line = Line(
      level: .warning,
      message: "Homebridge at \(endpoint) still unreachable: \(failures) failed attempts in "
        + "\(Self.seconds(now - (outageStart ?? now))), \(failuresSinceLastLine) since the last report "
        + "(latest: \(reason)); retrying in \(Self.seconds(delay))")
    failuresSinceLastLine = 0
    return line
  }

  /// The websocket is open again.
  public mutating func connected(at now: ContinuousClock.Instant) -> Line {
    defer {
      outageStart = nil
      failures = 0
      failuresSinceLastLine = 0
      lastLineAt = nil
    }
    guard let outageStart else { return Line(level: .info, message: "connected to Homebridge at \(endpoint)") }
    return Line(
      level: .info,
      message: "reconnected to Homebridge at \(endpoint) after \(failures) failed attempts, "
        + Self.seconds(now - outageStart))
  }

  static func seconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return self.seconds(Double(seconds) + Double(attoseconds) / 1e18)
  }

  static func seconds(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    return "\(Int(tenths) / 10).\(Int(tenths) % 10) s"
  }
}
