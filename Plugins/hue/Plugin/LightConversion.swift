import HueProtocol
import PatchbayPluginKit

#if canImport(Glibc)
  import Glibc
#endif

/// Between the hub's light values (percent, degrees, mired, milliseconds) and the bridge's.
enum LightConversion {
  /// A hub command as a bridge change, clamped into the API's ranges. Color wins over color
  /// temperature when a command carries both (a light shows one or the other).
  static func change(_ command: LightCommand) -> HueStateChange {
    var change = HueStateChange()
    change.on = command.on
    change.bri = command.brightness.map(HueUnits.bri(percent:))
    if let color = command.color {
      change.hue = HueUnits.hue(degrees: color.hue)
      change.sat = HueUnits.sat(percent: color.saturation)
    } else if let mired = command.colorTemperature {
      change.ct = HueUnits.ct(mired: mired)
    }
    change.transitionTime = command.transitionMs.map(HueUnits.transitionTime(milliseconds:))
    return change
  }

  /// A light's full state as a hub value: on, brightness and its current color or color
  /// temperature, so sending it back restores the light.
  static func command(_ state: HueLightState) -> LightCommand {
    var command = LightCommand(on: state.on)
    command.brightness = state.bri.map { rounded(HueUnits.percent(bri: $0)) }
    switch state.colorMode {
    case .colorTemperature:
      command.colorTemperature = state.ct.map(Double.init)
    case .hueSaturation, .xy, nil:
      if let hue = state.hue, let sat = state.sat {
        command.color = HSBColor(
          hue: rounded(HueUnits.degrees(hue: hue)), saturation: rounded(HueUnits.percent(sat: sat)),
          brightness: command.brightness ?? 100)
      } else if let ct = state.ct {
        command.colorTemperature = Double(ct)
      }
    }
    return command
  }

  /// The group's aggregate: on if any member is on; brightness and color averaged over the
  /// members that are on (over all members when none is); unreachable members left out
  /// unless all are.
  static func aggregate(_ members: [HueLightState]) -> LightCommand {
    let reachable = members.filter(\.reachable)
    let pool = reachable.isEmpty ? members : reachable
    let on = pool.filter(\.on)
    let counted = on.isEmpty ? pool : on
    let states = counted.map(command)
    var result = LightCommand(on: !on.isEmpty)
    let brightness = states.compactMap(\.brightness)
    if !brightness.isEmpty { result.brightness = rounded(brightness.reduce(0, +) / Double(brightness.count)) }
    let colors = states.compactMap(\.color)
    if !colors.isEmpty {
      result.color = HSBColor(
        hue: rounded(circularMean(colors.map(\.hue))),
        saturation: rounded(colors.map(\.saturation).reduce(0, +) / Double(colors.count)),
        brightness: result.brightness ?? 100)
    }
    let mireds = states.compactMap(\.colorTemperature)
    if !mireds.isEmpty { result.colorTemperature = (mireds.reduce(0, +) / Double(mireds.count)).rounded() }
    return result
  }

  /// The mean of angles in degrees (350 and 10 average to 0, not 180).
  static func circularMean(_ degrees: [Double]) -> Double {
    let x = degrees.map { cos($0 * .pi / 180) }.reduce(0, +)
    let y = degrees.map { sin($0 * .pi / 180) }.reduce(0, +)
    guard abs(x) > 1e-9 || abs(y) > 1e-9 else { return degrees.first ?? 0 }
    var mean = atan2(y, x) * 180 / .pi
    if mean < 0 { mean += 360 }
    return mean >= 359.995 ? 0 : mean
  }

  /// Four decimals: finer than the bridge's steps (so a state converts back to the same
  /// values), short enough to keep `watch` readable.
  static func rounded(_ value: Double) -> Double { (value * 10000).rounded() / 10000 }
}
