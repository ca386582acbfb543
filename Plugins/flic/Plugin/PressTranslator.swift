import FlicProtocol
import PatchbayPluginKit

/// Turns flicd press events into the hub's button values. flicd sends every press on ops 4
/// to 7 at once; the config picks which ones become values, so each gesture is reported once.
struct PressTranslator: Sendable {
  var clickEvents: FlicConfig.ClickEvents
  var exposeUpDown: Bool
  var maxQueuedAgeSeconds: Double

  enum Outcome: Equatable {
    case publish(ButtonEvent)
    /// A queued press older than the limit.
    case dropStale(ButtonAction, ageSeconds: UInt32)
    /// Not a press this instance reports (another op carries it).
    case ignore
  }

  func translate(_ event: EventPacket) -> Outcome {
    let action: ButtonAction?
    let press: ButtonPress
    switch event {
    case .buttonUpOrDown(let p):
      press = p
      action = exposeUpDown ? (p.clickType == .buttonDown ? .down : p.clickType == .buttonUp ? .up : nil) : nil
    case .buttonClickOrHold(let p):
      press = p
      action = clickEvents == .clickHold ? Self.clickOrHold(p.clickType) : nil
    case .buttonSingleOrDoubleClickOrHold(let p):
      press = p
      action = clickEvents == .singleDoubleHold ? Self.clickOrHold(p.clickType) : nil
    default:
      return .ignore
    }
    guard let action else { return .ignore }
    if press.wasQueued && Double(press.timeDiff) > maxQueuedAgeSeconds {
      return .dropStale(action, ageSeconds: press.timeDiff)
    }
    let ageMs = press.wasQueued ? UInt32(clamping: UInt64(press.timeDiff) * 1000) : 0
    return .publish(ButtonEvent(action: action, queued: press.wasQueued, ageMs: ageMs))
  }

  private static func clickOrHold(_ type: ClickType) -> ButtonAction? {
    switch type {
    case .buttonClick, .buttonSingleClick: .click
    case .buttonDoubleClick: .doubleClick
    case .buttonHold: .hold
    case .buttonDown, .buttonUp: nil
    }
  }
}
