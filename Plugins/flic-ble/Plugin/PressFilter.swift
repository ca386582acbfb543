import FlicBLEProtocol
import PatchbayPluginKit

/// Which of the central's presses become the hub's button values, with the flic plugin's rules:
/// down and up only when asked, and a queued press older than the limit dropped.
struct PressFilter: Sendable {
  var exposeUpDown: Bool
  var maxQueuedAgeSeconds: Double

  enum Outcome: Equatable {
    case publish(ButtonEvent)
    case dropStale(PatchbayValues.ButtonAction, ageSeconds: Double)
    case ignore
  }

  func translate(_ press: ButtonPress) -> Outcome {
    let action: PatchbayValues.ButtonAction
    switch press.action {
    case .down: action = .down
    case .up: action = .up
    case .click: action = .click
    case .doubleClick: action = .doubleClick
    case .hold: action = .hold
    }
    if (action == .down || action == .up) && !exposeUpDown { return .ignore }
    if press.wasQueued && press.ageSeconds > maxQueuedAgeSeconds {
      return .dropStale(action, ageSeconds: press.ageSeconds)
    }
    let ageMs = press.wasQueued ? UInt32(clamping: Int((press.ageSeconds * 1000).rounded())) : 0
    return .publish(ButtonEvent(action: action, queued: press.wasQueued, ageMs: ageMs))
  }
}

extension PatchbayValues.ButtonAction {
  /// The action's name as configs and `patchbay send` spell it.
  var configName: String {
    switch self {
    case .down: "down"
    case .up: "up"
    case .click: "click"
    case .doubleClick: "double_click"
    case .hold: "hold"
    }
  }
}
