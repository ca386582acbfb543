/// The hub's copy of the Twist's dial positions, one per mode (slots 0-11 and the push-twist
/// mode 12), each bounded to one turn (0...49152) as the Twist's LEDs show it. The Twist reports
/// deltas; its minimum and maximum deltas say where its own bounds lie, so the hub's bounded
/// position follows the button's even when the dial is turned past an end. The bounds logic is
/// Shortcut Labs' SDK's as pyflic-ble ports it (rotate_tracker.py, MultiModeRotateTracker).
public struct TwistPositionTracker: Sendable, Equatable {
  public static let modeCount = 13
  /// Unbounded sum of the deltas, per mode.
  private var absolute: [Int64]
  /// Where 0 lies in `absolute`'s terms, per mode.
  private var minimum: [Int64]

  /// Starts at `positions` (bounded units, per mode; missing modes start at 0).
  public init(positions: [Int32] = []) {
    absolute = (0..<Self.modeCount).map { Int64($0 < positions.count ? Self.clamp(positions[$0]) : 0) }
    minimum = Array(repeating: 0, count: Self.modeCount)
  }

  /// A mode's bounded position, 0...49152.
  public func position(_ mode: Int) -> Int32 {
    guard (0..<Self.modeCount).contains(mode) else { return 0 }
    return Int32(Swift.max(0, Swift.min(Int64(TwistDial.unitsPerTurn), absolute[mode] - minimum[mode])))
  }

  public var positions: [Int32] { (0..<Self.modeCount).map { position($0) } }

  /// Applies one TwistEventNotification; returns the mode's new bounded position.
  @discardableResult
  public mutating func apply(_ rotation: TwistRotation) -> Int32 {
    let mode = Int(rotation.modeIndex) < Self.modeCount ? Int(rotation.modeIndex) : 0
    let turn = Int64(TwistDial.unitsPerTurn)
    let position = absolute[mode] + Int64(rotation.totalDelta)
    let bottom = position - Int64(rotation.minimumDelta)
    let top = position - Int64(rotation.maximumDelta)
    var low = minimum[mode]
    if rotation.lastMinimumUpdateWasTop {
      low = Swift.min(low, bottom)
      if top > low + turn { low = top - turn }
    } else {
      if top > low + turn { low = top - turn }
      low = Swift.min(low, bottom)
    }
    if position < low {
      low = position
    } else if position > low + turn {
      low = position - turn
    }
    minimum[mode] = low
    absolute[mode] = position
    return self.position(mode)
  }

  private static func clamp(_ units: Int32) -> Int32 { Swift.max(0, Swift.min(TwistDial.unitsPerTurn, units)) }
}
