import FlicBLEProtocol

/// What a person does with a simulated button, and the event codes a Flic 2 reports for it,
/// with the button-clock offsets (1/32768 s) at which each happens.
public enum PressGesture: String, Sendable, CaseIterable {
  case click
  case doubleClick = "double-click"
  case hold
  /// Flic Duo swipes across the button's surface (a Flic 2 has no such sensor: to it a swipe is a click).
  case swipeLeft = "swipe-left"
  case swipeRight = "swipe-right"
  case swipeUp = "swipe-up"
  case swipeDown = "swipe-down"

  static let tick: UInt64 = 32768

  /// Codes and offsets from the moment the button goes down.
  var steps: [(code: ButtonEventCode, offset: UInt64)] {
    switch self {
    case .click, .swipeLeft, .swipeRight, .swipeUp, .swipeDown:
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

  /// What a Flic Duo reports: its own kinds, and a swipe on the release.
  var duoSteps: [(kind: DuoButtonEvent.Kind, offset: UInt64, gesture: DuoButtonEvent.Gesture?)] {
    switch self {
    case .click: return [(.down, 0, nil), (.up, Self.tick / 10, nil), (.singleClickTimeout, Self.tick * 6 / 10, nil)]
    case .doubleClick:
      return [
        (.down, 0, nil), (.up, Self.tick / 10, nil), (.down, Self.tick * 3 / 10, nil),
        (.upDoubleClick, Self.tick * 4 / 10, nil),
      ]
    case .hold: return [(.down, 0, nil), (.hold, Self.tick, nil), (.upAfterHold, Self.tick * 3 / 2, nil)]
    case .swipeLeft: return [(.down, 0, nil), (.up, Self.tick / 5, .left)]
    case .swipeRight: return [(.down, 0, nil), (.up, Self.tick / 5, .right)]
    case .swipeUp: return [(.down, 0, nil), (.up, Self.tick / 5, .up)]
    case .swipeDown: return [(.down, 0, nil), (.up, Self.tick / 5, .down)]
    }
  }

  /// How long the gesture takes on the button's clock.
  var duration: UInt64 { Swift.max(steps.last!.offset, duoSteps.last!.offset) }
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

extension DuoButtonEvent.Kind {
  /// The same counter residues as a Flic 2's (the Duo decoder keeps down and up odd).
  var counterResidue: UInt32 {
    switch self {
    case .down: 1
    case .hold: 2
    case .singleClickTimeout: 0
    case .up, .upSingleClick, .upAfterHold, .upDoubleClick, .upWithFlag: 3
    }
  }

  /// The Flic 2 code nearest in meaning (for the simulator's log).
  var flic2Code: ButtonEventCode {
    switch self {
    case .down: .down
    case .hold: .hold
    case .singleClickTimeout: .singleClickTimeout
    case .up: .upClickPending
    case .upSingleClick: .upSingleClick
    case .upAfterHold: .upAfterHold
    case .upDoubleClick, .upWithFlag: .upDoubleClick
    }
  }
}
