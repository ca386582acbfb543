import PatchbayPluginKit

/// The party-lights instance's config. Every mistake is refused naming its key and what would
/// be right.
///
/// ```toml
/// [instances.party]
/// plugin = "party-lights"
/// group = "living"                 # one group target: ports living.light / living.state
/// members = ["lamp1", "lamp2"]     # optional: its lights, captured and restored one by one
/// # lights = ["lamp1", "lamp2"]    # or several lights, each with its own offset (spread)
/// step_degrees = 15                # the seed: 15° steps at 75 % saturation, 100 % brightness
/// period_s = 24                    # one trip around the wheel (or bpm = 60: steps per minute)
/// ```
public struct PartyConfig: Sendable, Equatable {
  public enum Target: Sendable, Equatable {
    /// One group command per step; members only matter for capture and restore.
    case group(name: String, members: [String])
    /// One command per light per step, each offset by the spread.
    case lights([String])
  }

  public var target: Target
  public var plan: EffectPlan
  /// Seconds after which the party stops by itself; nil runs until stopped.
  public var duration: Double?
  /// Fade of the restore commands.
  public var restoreTransitionMs: UInt32

  /// Names whose state is captured and restored: the group's members if listed, else the
  /// group itself; or each light.
  public var capturedTargets: [String] {
    switch target {
    case .group(let name, let members): members.isEmpty ? [name] : members.map { "\(name).\($0)" }
    case .lights(let names): names
    }
  }

  /// Names that get the effect's commands.
  public var effectTargets: [String] {
    switch target {
    case .group(let name, _): [name]
    case .lights(let names): names
    }
  }

  /// Every target name with ports: the effect's targets and the captured ones.
  public var allTargets: [String] {
    var names = effectTargets
    for name in capturedTargets where !names.contains(name) { names.append(name) }
    return names
  }

  public init(json: String) throws {
    self = try PluginContext.decodeConfig(Self.self, json: json)
  }

  public init(target: Target, plan: EffectPlan, duration: Double? = nil, restoreTransitionMs: UInt32 = 400) {
    self.target = target
    self.plan = plan
    self.duration = duration
    self.restoreTransitionMs = restoreTransitionMs
  }
}
