import PatchbayPluginKit
import ScheduleProtocol
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// schedule: turns clock time, cron expressions, sun events and one-shot times into trigger
/// events, one output port per configured trigger.
///
/// One kit timer at a time, armed for the earliest next occurrence (at most a minute ahead, so
/// a wall-clock jump is noticed); each wake settles every trigger against the wall clock
/// (SchedulePlanner), saves what was settled, then publishes. Saving first means a crash
/// between the two loses a firing rather than repeating it: a trigger toggles scenes.
final class SchedulePlugin: PatchbayPlugin, Sendable {
  /// What changes while the instance runs. Only the plugin context touches it (one call at a
  /// time, plugin.h); the mutex makes that checkable by the compiler and is never contended.
  struct Running {
    var planner: SchedulePlanner?
    /// Bumped by stop: a timer of an older generation does nothing.
    var generation: UInt64 = 0
    var timer: UInt64?
    var lastNext: [String: Int64] = [:]
  }

  let context: PluginContext
  let config: ScheduleConfig
  let store: StateStore
  let ports: [String: OutputPort]
  /// `next.NAME`: when each trigger fires next (ISO 8601 text; empty while none is planned).
  let nextPorts: [String: OutputPort]
  private let running = Mutex(Running())

  init(context: PluginContext) throws {
    self.context = context
    config = try ScheduleConfig(json: context.configJSON)
    store = StateStore(directory: context.stateDirectory)
    var ports: [String: OutputPort] = [:]
    var nextPorts: [String: OutputPort] = [:]
    for trigger in config.triggers {
      ports[trigger.name] = try context.addOutput(
        trigger.name, .trigger, kind: .event, description: "fires at \(trigger.rule)")
      nextPorts[trigger.name] = try context.addOutput(
        "next." + trigger.name, .text, kind: .state, description: "when \(trigger.name) fires next (ISO 8601)",
        shownInStatus: .shown)
    }
    self.ports = ports
    self.nextPorts = nextPorts
  }

  func start() throws {
    let state: ScheduleState
    do {
      state = try store.load()
    } catch {
      context.log(.error, "cannot read \(store.path) (\(error)); starting without the last firing times")
      state = ScheduleState()
    }
    let planner = SchedulePlanner(triggers: config.triggers, zone: config.zone, state: state)
    let generation = running.withLock { running in
      running.planner = planner
      return running.generation
    }
    context.log(.info, "\(config.triggers.count) triggers in time zone \(config.zone.identifier)")
    wake(generation)
  }

  func stop() {
    let timer = running.withLock { running in
      running.generation &+= 1
      defer { running.timer = nil }
      return running.timer
    }
    if let timer { context.cancel(timer: timer) }
  }

  func receive(_ value: Value, on port: InputPort) throws {}

  /// Settles every trigger against the wall clock, publishes what is due, and re-arms.
  private func wake(_ expected: UInt64) {
    let now = Date().timeIntervalSince1970
    let second = Int64(now.rounded(.down))
    let outcome = running.withLock { running -> (SchedulePlanner.Settlement, SchedulePlanner)? in
      guard running.generation == expected, var planner = running.planner else { return nil }
      let settlement = planner.settle(now: second)
      running.planner = planner
      return (settlement, planner)
    }
    guard let (settlement, planner) = outcome else { return }
    if settlement.stateChanged {
      do {
        try store.save(planner.state)
      } catch {
        context.log(.error, "cannot save \(store.path): \(error); a restart now may fire or miss a trigger again")
      }
    }
    for note in settlement.notes {
      context.log(note.level == .warning ? .warning : .info, note.message)
    }
    for firing in settlement.firings {
      guard let port = ports[firing.trigger] else { continue }
      let published = context.publish(.trigger, on: port)
      context.log(
        published ? .info : .warning,
        "\(firing.trigger): \(published ? "fired" : "could not publish") for \(planner.describe(firing.occurrence))"
          + (firing.caughtUp ? " (caught up)" : ""))
    }
    logChangedNextOccurrences(settlement, planner)
    let delay = max(0, Double(settlement.wake(now: second)) - now) + 0.001
    let timer = context.schedule(after: .nanoseconds(Int64(delay * 1_000_000_000))) { [self] in wake(expected) }
    if timer == 0 {
      // The host refuses timers only around stop; anywhere else nothing would fire again.
      context.log(.error, "the host refused a timer: no trigger fires until the instance restarts")
    }
    running.withLock { running in
      if running.generation == expected { running.timer = timer }
    }
  }

  private func logChangedNextOccurrences(_ settlement: SchedulePlanner.Settlement, _ planner: SchedulePlanner) {
    // The first plan of each trigger at info; later ones (after every firing) at debug.
    let previous = running.withLock { running in
      defer { running.lastNext = settlement.next }
      return running.lastNext
    }
    for trigger in config.triggers where settlement.next[trigger.name] != previous[trigger.name] {
      if let port = nextPorts[trigger.name] {
        _ = context.publish(.text(settlement.next[trigger.name].map(planner.iso8601) ?? ""), on: port)
      }
      guard let instant = settlement.next[trigger.name] else { continue }
      context.log(
        previous[trigger.name] == nil ? .info : .debug,
        "\(trigger.name) (\(trigger.rule)): next at \(planner.describe(instant))")
    }
  }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target (kept apart so
/// tests can link this module without a second copy of the entry symbol).
public func describeSchedulePlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: SchedulePlugin.self, name: "schedule", version: PatchbayVersion.current,
    description: "Trigger events from cron expressions, sunrise/sunset/dawn/dusk and one-shot times")
}
