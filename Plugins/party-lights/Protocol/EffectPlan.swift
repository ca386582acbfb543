import PatchbayPluginKit

/// The party effect as a pure plan: which color each target gets at step k, how far apart the
/// steps are, and how fast the light driver lets them be. No clock, no ports: the plugin asks
/// it for step k and publishes the answer.
public struct EffectPlan: Sendable, Equatable {
  public enum Direction: String, Sendable, CaseIterable {
    case forward, backward
  }

  public enum Order: String, Sendable, CaseIterable {
    case sequential, random
  }

  public var source: ColorSource
  public var direction: Direction
  public var order: Order
  /// Offset between neighbouring targets: degrees on the wheel, entries in a palette.
  public var spread: Double
  /// How many targets get a command per step (one group, or each light).
  public var targetCount: Int
  /// Seconds between steps as configured (before speed and rate limits).
  public var requestedInterval: Double
  /// Fade time of each command; nil fades over the whole step interval.
  public var transitionMs: UInt32?
  public var rates: DriverRates

  public init(
    source: ColorSource, direction: Direction = .forward, order: Order = .sequential, spread: Double = 0,
    targetCount: Int, requestedInterval: Double, transitionMs: UInt32? = nil, rates: DriverRates
  ) {
    self.source = source
    self.direction = direction
    self.order = order
    self.spread = spread
    self.targetCount = targetCount
    self.requestedInterval = requestedInterval
    self.transitionMs = transitionMs
    self.rates = rates
  }

  /// The shortest interval the driver's rate allows: one group command per step, or one light
  /// command per light per step (the light rate is shared among the lights).
  public var minimumInterval: Double {
    rates.minimumInterval(commandsPerStep: targetCount)
  }

  /// Seconds between steps at `speed` (1 = as configured), never faster than the rate allows.
  public func interval(speed: Double = 1) -> Double {
    let wanted = requestedInterval / (speed > 0 ? speed : 1)
    return max(wanted, minimumInterval)
  }

  /// Whether the config asks for more steps than the driver's rate allows.
  public func exceedsRate(speed: Double = 1) -> Bool {
    requestedInterval / (speed > 0 ? speed : 1) < minimumInterval - 1e-9
  }

  /// The warning for a config (or speed) that asks for more than the rate, nil when it fits.
  public func rateWarning(speed: Double = 1) -> String? {
    guard exceedsRate(speed: speed) else { return nil }
    let wanted = 1 / (requestedInterval / (speed > 0 ? speed : 1))
    return "asks for \(Self.format(wanted)) steps/s but \(rates.describe(commandsPerStep: targetCount)) "
      + "allows \(Self.format(1 / minimumInterval)); running at \(Self.format(1 / minimumInterval)) steps/s "
      + "(one step every \(Self.format(minimumInterval)) s)"
  }

  /// The wheel or palette position of step `step`. Sequential: k steps along the direction.
  /// Random: any position but the previous one, drawn from `generator`.
  public func position<G: RandomNumberGenerator>(atStep step: Int, previous: Int?, generator: inout G) -> Int {
    let count = source.positionsPerCycle
    switch order {
    case .sequential:
      return direction == .forward ? step : -step
    case .random:
      guard count > 1 else { return 0 }
      guard let previous else { return Int.random(in: 0..<count, using: &generator) }
      let current = ((previous % count) + count) % count
      return (current + Int.random(in: 1..<count, using: &generator)) % count
    }
  }

  /// The command for each target at wheel or palette `position`, fading over `interval` seconds
  /// unless a transition is configured.
  public func commands(atPosition position: Int, interval: Double) -> [LightCommand] {
    let transition = transitionMs ?? UInt32(min(max(interval * 1000, 0), 3_600_000).rounded())
    return (0..<targetCount).map { target in
      let color = source.color(at: position, offset: Double(target) * spread)
      return LightCommand(on: true, brightness: color.brightness, color: color, transitionMs: transition)
    }
  }

  /// A number for messages: whole numbers without ".0", others to two decimals.
  public static func format(_ number: Double) -> String {
    let rounded = (number * 100).rounded() / 100
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
  }
}

/// The light driver's command rates (the hue driver's defaults: 1 group and 10 light commands
/// per second).
public struct DriverRates: Sendable, Equatable {
  public enum TargetKind: Sendable, Equatable {
    case group, lights
  }

  public var kind: TargetKind
  public var groupPerSecond: Double
  public var lightPerSecond: Double

  public init(kind: TargetKind, groupPerSecond: Double = 1, lightPerSecond: Double = 10) {
    self.kind = kind
    self.groupPerSecond = groupPerSecond
    self.lightPerSecond = lightPerSecond
  }

  public func minimumInterval(commandsPerStep: Int) -> Double {
    switch kind {
    case .group: 1 / groupPerSecond
    case .lights: Double(max(1, commandsPerStep)) / lightPerSecond
    }
  }

  func describe(commandsPerStep: Int) -> String {
    switch kind {
    case .group: "the group rate of \(EffectPlan.format(groupPerSecond)) commands/s"
    case .lights:
      "the light rate of \(EffectPlan.format(lightPerSecond)) commands/s shared by \(commandsPerStep) lights"
    }
  }
}
