import FlicBLEProtocol

/// What a person does with a simulated button, and the event codes a Flic 2 reports for it,
/// with the button-clock offsets (1/32768 s) at which each happens.
public enum PressGesture: String, Sendable, CaseIterable {
  case click
  case doubleClick = "double-click"
  case hold

  static let tick: UInt64 = 32768

  /// Codes and offsets from the moment the button goes down.
  var steps: [(code: ButtonEventCode, offset: UInt64)] {
    switch self {
    case .click:
      // Released after 0.1 s; the double-click window (0.5 s) closes without a second press.
      return [(.down, 0), (.upClickPending, Self.tick / 10), (.singleClickTimeout, Self.tick * 6 / 10)]
    case .doubleClick:
      return [
        (.down, 0), (.upClickPending, Self.tick / 10), (.down, Self.tick * 3 / 10),
        (.upDoubleClick, Self.tick * 4 / 10),
      ]
    case .hold:
      return [(.down, 0), (.hold, Self.tick), (.upAfterHold, Self.tick * 3 / 2)]
    }
  }

  /// How long the gesture takes on the button's clock.
  var duration: UInt64 { steps.last!.offset }
}

extension ButtonEventCode {
  /// The residue of the event counter that this kind of event takes (down 1, hold 2, up 3,
  /// single-click timeout 0): the counter skips the kinds that did not happen.
  var counterResidue: UInt32 {
    if rawValue >= 8 { return 3 }
    switch rawValue & 3 {
    case 0: return 3
    case 1: return 1
    case 2: return 0
    default: return 2
    }
  }
}
