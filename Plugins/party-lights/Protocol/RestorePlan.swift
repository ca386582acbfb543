import PatchbayPluginKit

/// How a light goes back to its pre-party state. A light that was on gets its state in one
/// command. A light that was off first gets its brightness and color back (while the party
/// still has it on), and is turned off only once that has been applied: a bridge refuses to
/// change an off light (Hue error 201), and the light should come back with its own color next
/// time someone turns it on.
public struct RestorePlan: Sendable, Equatable {
  public var first: LightCommand
  /// Sent after `first` shows in the light's state; nil when one command restores it.
  public var then: LightCommand?

  public init(captured: LightCommand, transitionMs: UInt32) {
    let look = LightCommand(
      on: true, brightness: captured.brightness, color: captured.color, colorTemperature: captured.colorTemperature,
      transitionMs: transitionMs)
    if captured.on == false {
      first = look
      then = LightCommand(on: false, transitionMs: transitionMs)
    } else {
      first = look
      then = nil
    }
  }

  /// Whether `state` (from the driver's state output) shows `command` applied, within the
  /// rounding of the bridge's units (brightness 1..254, saturation 0..254, hue 0..65535).
  public static func isApplied(_ command: LightCommand, in state: LightCommand) -> Bool {
    if let on = command.on, state.on != on { return false }
    if let brightness = command.brightness {
      guard let actual = state.brightness, abs(actual - brightness) <= 1.5 else { return false }
    }
    if let color = command.color {
      guard let actual = state.color else { return false }
      let hueDistance = abs(actual.hue - color.hue).truncatingRemainder(dividingBy: 360)
      guard min(hueDistance, 360 - hueDistance) <= 1.5 || color.saturation < 1,
        abs(actual.saturation - color.saturation) <= 1.5
      else { return false }
    }
    if let mired = command.colorTemperature {
      guard let actual = state.colorTemperature, abs(actual - mired) <= 2 else { return false }
    }
    return true
  }
}
