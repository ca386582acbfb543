import Foundation
import PartyLightsEffect
import PatchbayPluginKit

/// party-lights: cycles the colors of a light group, or of several lights with an offset each,
/// through the hub's `light` ports, and puts every light back as it was when the party stops.
///
/// Inputs `run` (state, bool), `toggle` and `stop` (events), `speed` (state, number: a
/// multiplier of the step rate); output `running` (state, bool); per target T `T.light` out and
/// `T.state` in.
///
/// All methods and timer callbacks run in the plugin context, one at a time (plugin.h), which
/// is what makes the unsynchronized state below safe; hence `@unchecked Sendable`.
final class PartyLightsPlugin: PatchbayPlugin, @unchecked Sendable {
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

  private var record = PartyRecord()
  /// The newest state the driver reported per target.
  private var latest: [String: LightCommand] = [:]
  private var runInputSeen = false
  private var waitingToCapture = false
  private var step = 0
  private var position: Int?
  private var generator = SystemRandomNumberGenerator()
  /// Bumped whenever the schedule changes: a timer of an older generation does nothing.
  private var generation: UInt64 = 0
  /// Lights that were off: turned off once their restored color shows in their state.
  private var awaitingLook: [String: RestorePlan] = [:]

  init(context: PluginContext) throws {
    self.context = context
    config = try PartyConfig(json: context.configJSON)
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
    do {
      record = try store.load()
    } catch {
      context.log(.error, "cannot read \(store.path) (\(error)); starting without a saved party")
      record = PartyRecord()
    }
    context.publish(.bool(record.phase == .running), on: running)
    switch record.phase {
    case .idle: break
    case .running:
      let elapsed = max(0, Date().timeIntervalSince1970 - record.anchorTime)
      step = record.anchorStep + Int(elapsed / config.plan.interval(speed: record.speed))
      context.log(
        .info, "resuming the party at step \(step); the pre-party state of \(record.captured.count) lights is kept")
      tick(generation)
    case .restoring:
      context.log(.info, "finishing the restore of \(record.captured.count) lights")
      restore()
    }
  }

  func receive(_ value: Value, on port: InputPort) throws {
    switch (port, value) {
    case (run, .bool(let on)):
      // The hub repeats the last `run` value after a restart; it is not a new request.
      if !runInputSeen, record.lastRunInput == on {
        runInputSeen = true
        context.log(.info, "run = \(on) again after a restart: not a new request")
        return
      }
      runInputSeen = true
      record.lastRunInput = on
      save()
      on ? requestStart() : requestStop("run = false")
    case (toggle, _):
      record.phase == .running || waitingToCapture ? requestStop("toggle") : requestStart()
    case (stopInput, _):
      requestStop("stop")
    case (speed, .number(let factor)):
      changeSpeed(factor)
    case (_, .light(let state)):
      guard let name = targetByStatePort[port.index] else { return }
      latest[name] = state
      stateArrived(for: name, state)
    default:
      context.log(.debug, "\(port.name): ignored \(value)")
    }
  }

  func stop() {
    generation &+= 1
  }

  // MARK: Starting

  private func requestStart() {
    switch record.phase {
    case .running: return
    case .restoring:
      // The lights are not back yet: what was captured is still the state to return to.
      context.log(.info, "party restarted before the restore finished; keeping the captured state")
      begin(capturing: false)
    case .idle:
      guard !waitingToCapture else { return }
      if missingStates.isEmpty {
        begin(capturing: true)
      } else {
        waitingToCapture = true
        context.log(
          .info, "waiting up to 5 s for the state of \(missingStates.joined(separator: ", ")) before starting")
        let expected = generation
        context.schedule(after: Self.captureWait) { [self] in
          guard expected == generation, waitingToCapture else { return }
          context.log(
            .warning,
            "no state from \(missingStates.joined(separator: ", ")): starting anyway; those will not be restored")
          begin(capturing: true)
        }
      }
    }
  }

  private var missingStates: [String] { config.capturedTargets.filter { latest[$0] == nil } }

  private func begin(capturing: Bool) {
    waitingToCapture = false
    generation &+= 1
    awaitingLook = [:]
    if capturing {
      record.captured = [:]
      for name in config.capturedTargets {
        if let state = latest[name] { record.captured[name] = StoredLight(state) }
      }
    }
    let now = Date().timeIntervalSince1970
    record.phase = .running
    record.anchorStep = 0
    record.anchorTime = now
    record.endsAt = config.duration.map { now + $0 }
    save()
    step = 0
    position = nil
    context.publish(.bool(true), on: running)
    context.log(
      .info,
      "party started: one step every \(EffectPlan.format(config.plan.interval(speed: record.speed))) s; "
        + "captured \(record.captured.keys.sorted().map { "\($0) \(Self.describe(record.captured[$0]!.light))" }.joined(separator: ", "))"
    )
    tick(generation)
  }

  // MARK: Running

  private func tick(_ expected: UInt64) {
    guard expected == generation, record.phase == .running else { return }
    if let endsAt = record.endsAt, Date().timeIntervalSince1970 >= endsAt {
      requestStop("duration reached")
      return
    }
    let interval = config.plan.interval(speed: record.speed)
    let at = config.plan.position(atStep: step, previous: position, generator: &generator)
    position = at
    for (name, command) in zip(config.effectTargets, config.plan.commands(atPosition: at, interval: interval)) {
      if let ports = targets[name] { context.publish(.light(command), on: ports.light) }
    }
    step += 1
    context.schedule(after: .milliseconds(Int64((interval * 1000).rounded()))) { [self] in tick(expected) }
  }

  private func changeSpeed(_ factor: Double) {
    guard factor > 0, factor.isFinite else {
      context.log(.warning, "speed must be above 0, not \(factor); keeping \(record.speed)")
      return
    }
    guard factor != record.speed else { return }
    if let warning = config.plan.rateWarning(speed: factor) { context.log(.warning, "speed \(factor) \(warning)") }
    record.speed = factor
    // Count steps from here at the new interval, so a restart resumes where the party is.
    record.anchorStep = step
    record.anchorTime = Date().timeIntervalSince1970
    save()
  }

  // MARK: Stopping

  private func requestStop(_ reason: String) {
    if waitingToCapture {
      waitingToCapture = false
      // The pending capture timer must not start a later request early.
      generation &+= 1
      context.log(.info, "party start cancelled (\(reason))")
      return
    }
    guard record.phase == .running else { return }
    generation &+= 1
    record.phase = .restoring
    save()
    context.publish(.bool(false), on: running)
    context.log(.info, "party stopped (\(reason)); restoring \(record.captured.count) lights")
    restore()
  }

  /// Sends each captured target its restore; lights that were off are turned off once their
  /// color shows (see RestorePlan). Kept in the record until done, so a restart finishes it.
  private func restore() {
    awaitingLook = [:]
    for (name, stored) in record.captured.sorted(by: { $0.key < $1.key }) {
      guard let ports = targets[name] else { continue }
      let plan = RestorePlan(captured: stored.light, transitionMs: config.restoreTransitionMs)
      context.publish(.light(plan.first), on: ports.light)
      if plan.then != nil { awaitingLook[name] = plan }
    }
    if awaitingLook.isEmpty {
      finishRestore()
    } else {
      remindWhileRestoring(generation)
    }
  }

  private func stateArrived(for name: String, _ state: LightCommand) {
    guard record.phase == .restoring, let plan = awaitingLook[name], let then = plan.then,
      RestorePlan.isApplied(plan.first, in: state)
    else { return }
    awaitingLook[name] = nil
    if let ports = targets[name] { context.publish(.light(then), on: ports.light) }
    if awaitingLook.isEmpty { finishRestore() }
  }

  private func remindWhileRestoring(_ expected: UInt64) {
    context.schedule(after: Self.restoreReminder) { [self] in
      guard expected == generation, record.phase == .restoring, !awaitingLook.isEmpty else { return }
      context.log(
        .warning,
        "still waiting for \(awaitingLook.keys.sorted().joined(separator: ", ")) to show the restored color before turning off"
      )
      remindWhileRestoring(expected)
    }
  }

  private func finishRestore() {
    context.log(.info, "restored the pre-party state of \(record.captured.count) lights")
    record.phase = .idle
    record.captured = [:]
    record.endsAt = nil
    save()
  }

  private func save() {
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
    for: PartyLightsPlugin.self, name: "party-lights", version: "1.0.0",
    description: "Color-cycle party effect for light groups or lights, restoring each light afterwards")
}
