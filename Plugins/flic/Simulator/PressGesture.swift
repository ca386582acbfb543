import FlicProtocol

/// What a finger does on the button; each becomes a sequence of flicd events.
enum PressGesture: String, CaseIterable, Sendable {
  case single, double, hold, down, up

  /// One event (with its op) in the order flicd sends it, with the delay before it, measured
  /// from the previous step. flicd sends every op to every channel; clients pick what they need.
  struct Step: Equatable {
    enum Op: Equatable { case upOrDown, clickOrHold, singleOrDoubleClick, singleOrDoubleClickOrHold }
    var delayMs: Int
    var op: Op
    var clickType: ClickType
  }

  /// A live press honours flicd's timing: a single click on ops 6/7 comes after the 0.5 s
  /// double-click window, a hold after 1 s. A queued press was recorded by the button and is
  /// replayed at once.
  func steps(live: Bool) -> [Step] {
    let window = live ? 500 : 0
    let holdTime = live ? 1000 : 0
    switch self {
    case .down: return [Step(delayMs: 0, op: .upOrDown, clickType: .buttonDown)]
    case .up: return [Step(delayMs: 0, op: .upOrDown, clickType: .buttonUp)]
    case .single:
      return [
        Step(delayMs: 0, op: .upOrDown, clickType: .buttonDown),
        Step(delayMs: 0, op: .upOrDown, clickType: .buttonUp),
        Step(delayMs: 0, op: .clickOrHold, clickType: .buttonClick),
        Step(delayMs: window, op: .singleOrDoubleClick, clickType: .buttonSingleClick),
        Step(delayMs: 0, op: .singleOrDoubleClickOrHold, clickType: .buttonSingleClick),
      ]
    case .double:
      return [
        Step(delayMs: 0, op: .upOrDown, clickType: .buttonDown),
        Step(delayMs: 0, op: .upOrDown, clickType: .buttonUp),
        Step(delayMs: 0, op: .clickOrHold, clickType: .buttonClick),
        Step(delayMs: 0, op: .upOrDown, clickType: .buttonDown),
        Step(delayMs: 0, op: .upOrDown, clickType: .buttonUp),
        Step(delayMs: 0, op: .clickOrHold, clickType: .buttonClick),
        Step(delayMs: 0, op: .singleOrDoubleClick, clickType: .buttonDoubleClick),
        Step(delayMs: 0, op: .singleOrDoubleClickOrHold, clickType: .buttonDoubleClick),
      ]
    case .hold:
      return [
        Step(delayMs: 0, op: .upOrDown, clickType: .buttonDown),
        Step(delayMs: holdTime, op: .clickOrHold, clickType: .buttonHold),
        Step(delayMs: 0, op: .singleOrDoubleClickOrHold, clickType: .buttonHold),
        Step(delayMs: 0, op: .upOrDown, clickType: .buttonUp),
        // On ops 6 a hold is a single click (that op knows no hold).
        Step(delayMs: 0, op: .singleOrDoubleClick, clickType: .buttonSingleClick),
      ]
    }
  }
}

extension PressGesture.Step.Op {
  func event(_ press: ButtonPress) -> EventPacket {
    switch self {
    case .upOrDown: .buttonUpOrDown(press)
    case .clickOrHold: .buttonClickOrHold(press)
    case .singleOrDoubleClick: .buttonSingleOrDoubleClick(press)
    case .singleOrDoubleClickOrHold: .buttonSingleOrDoubleClickOrHold(press)
    }
  }
}
