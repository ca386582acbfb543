import PartyLightsProtocol
import PatchbayPluginKit
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// party-lights: cycles the colors of a light group, or of several lights with an offset each,
/// through the hub's `light` ports, and puts every light back as it was when the party stops.
///
/// Inputs `run` (state, bool), `toggle` and `stop` (events), `speed` (state, number: a
/// multiplier of the step rate); output `running` (state, bool); per target T `T.light` out and
/// `T.state` in.
///
/// All methods and timer callbacks run in the plugin context, one at a time (plugin.h); the
/// mutable state is in a `Mutex` all the same (never contended), so the compiler checks it.
final class PartyLightsPlugin: PatchbayPlugin, Sendable {
  /// How long a start waits for the state of targets whose driver has not reported yet.
  static let captureWait: Duration = .seconds(5)
  /// How often a restore that waits for a light to show its color says so.
  static let restoreReminder: Duration = .seconds(30)

  let context: PluginContext
  let config: PartyConfig
  let store: RecordStore
  let targets: [String: TargetPorts]
  let targetByStatePort: [UInt32: String]
  let run: InputPort
  let toggle: InputPort
  let stopInput: InputPort
  let speed: InputPort
  let running: OutputPort

  private let state = Mutex(State())

  private struct State {
    var record = PartyRecord()
    /// The newest state the driver reported per target.
    var latest: [String: LightCommand] = [:]
    var runInputSeen = false
    var waitingToCapture = false
    var step = 0
    var position: Int?
    var generator = SystemRandomNumberGenerator()
    /// Bumped whenever the schedule changes: a timer of an older generation does nothing.
    var generation: UInt64 = 0
    /// Lights that were off: turned off once their restored color shows in their state.
    var awaitingLook: [String: RestorePlan] = [:]
  }

  init(context: PluginContext) throws {
    self.context = context
    config = try context.config(PartyConfig.self)
    store = RecordStore(directory: context.stateDirectory)
    run = try context.addInput("run", .bool, kind: .state, description: "true starts the party, false stops it")
    toggle = try context.addInput("toggle", .trigger, kind: .event, description: "starts or stops the party")
    // An event, unlike `run`: a second source of stops (a button's hold) must not be replayed.
    stopInput = try context.addInput("stop", .trigger, kind: .event, description: "stops the party")
    speed = try context.addInput(
      "speed", .number, kind: .state,
      description: "multiplies the step rate (1 = as configured, within the driver's rate)")
    running = try context.addOutput("running", .bool, kind: .state, description: "whether the party runs")
    var targets: [String: TargetPorts] = [:]
    for name in config.allTargets { targets[name] = try TargetPorts(name: name, in: context) }
    self.targets = targets
    targetByStatePort = Dictionary(uniqueKeysWithValues: targets.values.map { ($0.state.index, $0.name) })
    if let warning = config.plan.rateWarning() { context.log(.warning, warning) }
  }

  func start() throws {
    state.withLock { s in
      do {
        s.record = try store.load()
      } catch {
        context.log(.error, "cannot read \(store.path) (\(error)); starting without a saved party")
        s.record = PartyRecord()
      }
      context.publish(.bool(s.record.phase == .running), on: running)
      switch s.record.phase {
      case .idle: break
      case .running:
        let elapsed = max(0, Date().timeIntervalSince1970 - s.record.anchorTime)
        s.step = s.record.anchorStep + Int(elapsed / config.plan.interval(speed: s.record.speed))
        context.log(
          .info,
          "resuming the party at step \(s.step); the pre-party state of \(s.record.captured.count) lights is kept")
        tick(s.generation, &s)
      case .restoring:
        context.log(.info, "finishing the restore of \(s.record.captured.count) lights")
        restore(&s)
      }
    }
  }

  func receive(_ value: Value, on port: InputPort) throws {
    state.withLock { s in
      switch (port, value) {
      case (run, .bool(let on)):
        // The hub repeats the last `run` value after a restart; it is not a new request.
        if !s.runInputSeen, s.record.lastRunInput == on {
          s.runInputSeen = true
          context.log(.info, "run = \(on) again after a restart: not a new request")
          return
        }
        s.runInputSeen = true
        s.record.lastRunInput = on
        save(s.record)
        on ? requestStart(&s) : requestStop("run = false", &s)
      case (toggle, _):
        s.record.phase == .running || s.waitingToCapture ? requestStop("toggle", &s) : requestStart(&s)
      case (stopInput, _):
        requestStop("stop", &s)
      case (speed, .number(let factor)):
        changeSpeed(factor, &s)
      case (_, .light(let state)):
        guard let name = targetByStatePort[port.index] else { return }
        s.latest[name] = state
        stateArrived(for: name, state, &s)
      default:
        context.log(.debug, "\(port.name): ignored \(value)")
      }
    }
  }

  func stop() {
    state.withLock { $0.generation &+= 1 }
  }

  // MARK: Starting

  private func requestStart(_ s: inout State) {
    switch s.record.phase {
    case .running: return
    case .restoring:
      // The lights are not back yet: what was captured is still the state to return to.
      context.log(.info, "party restarted before the restore finished; keeping the captured state")
      begin(capturing: false, &s)
    case .idle:
      guard !s.waitingToCapture else { return }
      if missingStates(s).isEmpty {
        begin(capturing: true, &s)
      } else {
        s.waitingToCapture = true
        context.log(
          .info, "waiting up to 5 s for the state of \(missingStates(s).joined(separator: ", ")) before starting")
        let expected = s.generation
        context.schedule(after: Self.captureWait) { [self] in
          state.withLock { s in
            guard expected == s.generation, s.waitingToCapture else { return }
            context.log(
              .warning,
              "no state from \(missingStates(s).joined(separator: ", ")): starting anyway; those will not be restored")
            begin(capturing: true, &s)
          }
        }
      }
    }
  }

  private func missingStates(_ s: State) -> [String] { config.capturedTargets.filter { s.latest[$0] == nil } }

  private func begin(capturing: Bool, _ s: inout State) {
    s.waitingToCapture = false
    s.generation &+= 1
    s.awaitingLook = [:]
    if capturing {
      s.record.captured = [:]
      for name in config.capturedTargets {
        if let state = s.latest[name] { s.record.captured[name] = StoredLight(state) }
      }
    }
    let now = Date().timeIntervalSince1970
    s.record.phase = .running
    s.record.anchorStep = 0
    s.record.anchorTime = now
    s.record.endsAt = config.duration.map { now + $0 }
    save(s.record)
    s.step = 0
    s.position = nil
    context.publish(.bool(true), on: running)
    context.log(
      .info,
      "party started: one step every \(EffectPlan.format(config.plan.interval(speed: s.record.speed))) s; "
        + "captured \(s.record.captured.keys.sorted().map { "\($0) \(Self.describe(s.record.captured[$0]!.light))" }.joined(separator: ", "))"
    )
    tick(s.generation, &s)
  }

  // MARK: Running

  private func tick(_ expected: UInt64, _ s: inout State) {
    guard expected == s.generation, s.record.phase == .running else { return }
    if let endsAt = s.record.endsAt, Date().timeIntervalSince1970 >= endsAt {
      requestStop("duration reached", &s)
      return
    }
    let interval = config.plan.interval(speed: s.record.speed)
    let at = config.plan.position(atStep: s.step, previous: s.position, generator: &s.generator)
    s.position = at
    for (name, command) in zip(config.effectTargets, config.plan.commands(atPosition: at, interval: interval)) {
      if let ports = targets[name] { context.publish(.light(command), on: ports.light) }
    }
    s.step += 1
    context.schedule(after: .milliseconds(Int64((interval * 1000).rounded()))) { [self] in
      state.withLock { tick(expected, &$0) }
    }
  }

  private func changeSpeed(_ factor: Double, _ s: inout State) {
    guard factor > 0, factor.isFinite else {
      context.log(.warning, "speed must be above 0, not \(factor); keeping \(s.record.speed)")
      return
    }
    guard factor != s.record.speed else { return }
    if let warning = config.plan.rateWarning(speed: factor) { context.log(.warning, "speed \(factor) \(warning)") }
    s.record.speed = factor
    // Count steps from here at the new interval, so a restart resumes where the party is.
    s.record.anchorStep = s.step
    s.record.anchorTime = Date().timeIntervalSince1970
    save(s.record)
  }

  // MARK: Stopping

  private func requestStop(_ reason: String, _ s: inout State) {
    if s.waitingToCapture {
      s.waitingToCapture = false
      // The pending capture timer must not start a later request early.
      s.generation &+= 1
      context.log(.info, "party start cancelled (\(reason))")
      return
    }
    guard s.record.phase == .running else { return }
    s.generation &+= 1
    s.record.phase = .restoring
    save(s.record)
    context.publish(.bool(false), on: running)
    context.log(.info, "party stopped (\(reason)); restoring \(s.record.captured.count) lights")
    restore(&s)
  }

  /// Sends each captured target its restore; lights that were off are turned off once their
  /// color shows (see RestorePlan). Kept in the s.record until done, so a restart finishes it.
  private func restore(_ s: inout State) {
    s.awaitingLook = [:]
    for (name, stored) in s.record.captured.sorted(by: { $0.key < $1.key }) {
      guard let ports = targets[name] else { continue }
      let plan = RestorePlan(captured: stored.light, transitionMs: config.restoreTransitionMs)
      context.publish(.light(plan.first), on: ports.light)
      if plan.then != nil { s.awaitingLook[name] = plan }
    }
    if s.awaitingLook.isEmpty {
      finishRestore(&s)
    } else {
      remindWhileRestoring(s.generation)
    }
  }

  private func stateArrived(for name: String, _ state: LightCommand, _ s: inout State) {
    guard s.record.phase == .restoring, let plan = s.awaitingLook[name], let then = plan.then,
      RestorePlan.isApplied(plan.first, in: state)
    else { return }
    s.awaitingLook[name] = nil
    if let ports = targets[name] { context.publish(.light(then), on: ports.light) }
    if s.awaitingLook.isEmpty { finishRestore(&s) }
  }

  private func remindWhileRestoring(_ expected: UInt64) {
    context.schedule(after: Self.restoreReminder) { [self] in
      state.withLock { s in
        guard expected == s.generation, s.record.phase == .restoring, !s.awaitingLook.isEmpty else { return }
        context.log(
          .warning,
          "still waiting for \(s.awaitingLook.keys.sorted().joined(separator: ", ")) to show the restored color before turning off"
        )
        remindWhileRestoring(expected)
      }
    }
  }

  private func finishRestore(_ s: inout State) {
    context.log(.info, "restored the pre-party state of \(s.record.captured.count) lights")
    s.record.phase = .idle
    s.record.captured = [:]
    s.record.endsAt = nil
    save(s.record)
  }

  private func save(_ record: PartyRecord) {
    do {
      try store.save(record)
    } catch {
      context.log(.error, "cannot save \(store.path): \(error); a restart now would lose the pre-party state")
    }
  }

  static func describe(_ light: LightCommand) -> String {
    var parts: [String] = []
    if let on = light.on { parts.append(on ? "on" : "off") }
    if let brightness = light.brightness { parts.append("bri \(EffectPlan.format(brightness))") }
    if let color = light.color {
      parts.append("hue \(EffectPlan.format(color.hue)) sat \(EffectPlan.format(color.saturation))")
    }
    if let mired = light.colorTemperature { parts.append("ct \(EffectPlan.format(mired))") }
    return "(" + parts.joined(separator: " ") + ")"
  }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target (kept apart so
/// tests can link this module without a second copy of the entry symbol).
public func describePartyLightsPlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: PartyLightsPlugin.self, name: "party-lights", version: PatchbayVersion.current,
    description: "Color-cycle party effect for light groups or lights, restoring each light afterwards")
}
