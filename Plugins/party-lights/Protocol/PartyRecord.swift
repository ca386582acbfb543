import PatchbayPluginKit

/// What the effect keeps under the instance's state directory, so that a restart of its
/// process or of the hub neither loses the pre-party state nor restarts a party that was
/// stopped.
public struct PartyRecord: Codable, Sendable, Equatable {
  public enum Phase: String, Codable, Sendable {
    /// No party; nothing to restore.
    case idle
    /// The party runs; `captured` holds what to restore.
    case running
    /// Stop was asked for; the restore of `captured` is not confirmed yet.
    case restoring
  }

  public var phase: Phase = .idle
  /// Pre-party state per target name (group, member or light).
  public var captured: [String: StoredLight] = [:]
  /// Step and wall-clock time (seconds since 1970) the run counts from, to resume after a restart.
  public var anchorStep: Int = 0
  public var anchorTime: Double = 0
  /// When the party stops by itself (wall clock), if it has a duration.
  public var endsAt: Double?
  public var speed: Double = 1
  /// The last value seen on the `run` input: the hub gives it again after a restart, and that
  /// repeat must not restart a party that `toggle` stopped.
  public var lastRunInput: Bool?

  public init() {}
}

/// A light state as stored on disk.
public struct StoredLight: Codable, Sendable, Equatable {
  public var on: Bool?
  public var brightness: Double?
  public var hue: Double?
  public var saturation: Double?
  public var colorTemperature: Double?

  public init(_ light: LightCommand) {
    on = light.on
    brightness = light.brightness
    hue = light.color?.hue
    saturation = light.color?.saturation
    colorTemperature = light.colorTemperature
  }

  public var light: LightCommand {
    LightCommand(
      on: on, brightness: brightness,
      color: hue.map { HSBColor(hue: $0, saturation: saturation ?? 0, brightness: brightness ?? 100) },
      colorTemperature: colorTemperature)
  }
}
