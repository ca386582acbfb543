import HueProtocol
import NIOCore
import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Runs one bridge: polls it, sends commands through the `CommandScheduler`, and publishes the
/// groups' and lights' state. All its state lives on one event loop (`state`, checked there);
/// the public methods may be called from any thread and hop there, in call order.
final class HueDriver: Sendable {
  typealias Publish = @Sendable (Value, OutputPort) -> Void
  typealias Log = @Sendable (LogLevel, String) -> Void

  let config: HueConfig
  let ports: [GroupPorts]
  let loop: any EventLoop
  let client: BridgeClient
  private let logLine: Log

  /// Everything that changes, owned by `loop`: only code running there reaches it.
  private let state: NIOLoopBoundBox<State>

  private struct State {
    var model = BridgeModel()
    var scheduler: CommandScheduler
    var bridgeReachable: Bool?
    var pollInFlight = false
    var pollBackoff: RetryBackoff
    var pollTimer: Scheduled<Void>?
    var wakeTimer: (at: Double, task: Scheduled<Void>)?
    /// Group commands that came before the bridge was read (the group's members are unknown).
    var unresolved: [Int: HueStateChange] = [:]
    var publisher: StatePublisher
    var warnedMismatch: Set<Int> = []
    var warnedMissing: Set<String> = []
    var stopped = false
  }

  init(
    config: HueConfig, ports: [GroupPorts], loop: any EventLoop, client: BridgeClient, publish: @escaping Publish,
    log: @escaping Log
  ) {
    self.config = config
    self.ports = ports
    self.loop = loop
    self.client = client
    logLine = log
    let state = State(
      scheduler: CommandScheduler(
        limits: .init(
          groupRate: config.groupRate, lightRate: config.lightRate, maxInFlight: config.maxInFlight,
          retryMaxSeconds: config.retryMaxSeconds)),
      pollBackoff: RetryBackoff(maximum: config.retryMaxSeconds),
      publisher: StatePublisher(config: config, ports: ports, publish: publish))
    self.state = NIOLoopBoundBox.makeBoxSendingValue(state, eventLoop: loop)
  }

  // MARK: Any thread

  func start() { loop.execute { self.poll() } }

  /// A command on `G.light`.
  func submit(_ command: LightCommand, toGroup index: Int) {
    loop.execute { self.submitGroup(LightConversion.change(command), index) }
  }

  /// A command on `G.M.light`.
  func submit(_ command: LightCommand, toMember member: Int, ofGroup index: Int) {
    loop.execute {
      let id = self.config.groups[index].members[member].lightID
      self.submitLights(LightConversion.change(command), [id])
    }
  }

  func stop() {
    try? loop.submit {
      self.state.value.stopped = true
      self.state.value.pollTimer?.cancel()
      self.state.value.wakeTimer?.task.cancel()
    }.wait()
    client.shutdown()
  }

  // MARK: Commands

  private func submitGroup(_ change: HueStateChange, _ index: Int) {
    guard let members = members(of: index) else {
      if state.value.unresolved[index] == nil {
        log(.info, "\(config.groups[index].name): the bridge was not read yet; the newest command waits for it")
      }
      state.value.unresolved[index] = state.value.unresolved[index].map { $0.followed(by: change) } ?? change
      return
    }
    let adjusted = Self.dropSettingsOfOffLights(change, members.map { state.value.model.lights[$0] })
    if let id = bridgeGroup(of: index, members: members) {
      state.value.scheduler.submit(adjusted, to: .group(id), now: now)
      pump()
    } else {
      submitLights(adjusted, members)
    }
  }

  private func submitLights(_ change: HueStateChange, _ ids: [String]) {
    for id in ids {
      state.value.scheduler.submit(
        Self.dropSettingsOfOffLights(change, [state.value.model.lights[id]]), to: .light(id), now: now)
    }
    pump()
  }

  /// Switching off lights that are all off: only `on` is sent, since the bridge refuses
  /// anything else for an off light (error 201).
  static func dropSettingsOfOffLights(_ change: HueStateChange, _ states: [HueLightState?]) -> HueStateChange {
    guard change.on == false, !states.isEmpty, states.allSatisfy({ $0?.on == false }) else { return change }
    return HueStateChange(on: false, transitionTime: change.transitionTime)
  }

  private func pump() {
    guard !state.value.stopped else { return }
    while let dispatch = state.value.scheduler.nextDispatch(now: now, busy: state.value.pollInFlight ? 1 : 0) {
      send(dispatch)
    }
    guard let wake = state.value.scheduler.nextWakeup(now: now) else { return }
    if let current = state.value.wakeTimer, current.at <= wake, current.at > now { return }
    state.value.wakeTimer?.task.cancel()
    let task = loop.scheduleTask(in: .nanoseconds(Int64(max(0, wake - now) * 1e9) + 1_000_000)) {
      self.state.value.wakeTimer = nil
      self.pump()
    }
    state.value.wakeTimer = (wake, task)
  }

  private func send(_ dispatch: CommandScheduler.Dispatch) {
    client.put(dispatch.target.path, dispatch.change.json, on: loop).whenComplete { result in
      guard !self.state.value.stopped else { return }
      switch result {
      case .success(let results):
        self.state.value.scheduler.delivered(dispatch, now: self.now)
        for (address, value) in results.successes { self.state.value.model.apply(success: address, value: value) }
        for error in results.errors {
          self.log(.warning, "the bridge refused part of a command to \(dispatch.target): \(error)")
        }
        self.publishAll()
      case .failure(let error):
        let delay = self.state.value.scheduler.failed(dispatch, now: self.now)
        self.log(
          .warning,
          "command to \(dispatch.target) failed (\(self.describe(error))); kept, retrying in \(RetryBackoff.describe(delay))"
        )
      }
      self.pump()
    }
  }

  // MARK: Polling

  private func poll() {
    guard !state.value.stopped, !state.value.pollInFlight else { return }
    state.value.pollInFlight = true
    let lights = client.get("/lights", on: loop)
    lights.flatMap { lightData in
      self.client.get("/groups", on: self.loop).map { (lightData, $0) }
    }.flatMapThrowing { lightData, groupData in
      do throws(HueParseError) {
        return (try HueAnswerParser.lights(lightData), try HueAnswerParser.groups(groupData))
      } catch {
        throw BridgeClient.Failure.unreadable(error)
      }
    }.whenComplete { result in
      self.state.value.pollInFlight = false
      guard !self.state.value.stopped else { return }
      let delay: Double
      switch result {
      case .success(let (lights, groups)):
        self.read(lights: lights, groups: groups)
        delay = self.config.pollIntervalSeconds
      case .failure(let error):
        delay = self.state.value.pollBackoff.next()
        if case BridgeClient.Failure.unreadable(.bridgeErrors(let errors)) = error,
          errors.contains(where: { $0.known == .unauthorizedUser })
        {
          self.log(.error, "the bridge does not know this username: pair again with `patchbay hue pair BRIDGE`")
        } else if self.state.value.bridgeReachable != false {
          self.log(
            .warning,
            "the bridge at \(self.client.base) does not answer (\(self.describe(error))); retrying with back-off")
        }
        // A bridge away for hours: every 20th retry at info, the others at debug.
        let level: LogLevel = (self.state.value.pollBackoff.attempts - 1) % 20 == 0 ? .info : .debug
        self.log(level, "bridge poll failed (\(self.describe(error))); next try in \(RetryBackoff.describe(delay))")
        self.state.value.bridgeReachable = false
        self.publishAll()
      }
      self.state.value.pollTimer = self.loop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { self.poll() }
      self.pump()
    }
  }

  private func read(lights: [String: HueLight], groups: [String: HueGroup]) {
    if state.value.bridgeReachable != true {
      log(.info, "the bridge at \(client.base) answers: \(lights.count) lights, \(groups.count) groups")
    }
    state.value.bridgeReachable = true
    state.value.pollBackoff.reset()
    state.value.model.lights = lights.mapValues(\.state)
    state.value.model.groups = groups
    state.value.model.wasRead = true
    state.value.scheduler.setGroupMembers(state.value.model.groupMembers)
    state.value.scheduler.bridgeAnswered(now: now)
    for group in config.groups {
      for member in group.members
      where lights[member.lightID] == nil && state.value.warnedMissing.insert(member.lightID).inserted {
        log(.warning, "\(group.name).\(member.name): the bridge has no light \(member.lightID)")
      }
    }
    for (index, change) in state.value.unresolved.sorted(by: { $0.key < $1.key }) where members(of: index) != nil {
      state.value.unresolved[index] = nil
      submitGroup(change, index)
    }
    publishAll()
  }

  // MARK: Membership and publishing

  private func members(of index: Int) -> [String]? {
    GroupMembership(group: config.groups[index], model: state.value.model).members
  }

  /// The bridge group for a whole-group command; nil means per light (warned once when the
  /// configured bridge group has other members than `lights`).
  private func bridgeGroup(of index: Int, members: [String]) -> String? {
    let membership = GroupMembership(group: config.groups[index], model: state.value.model)
    if let configured = membership.mismatchedBridgeGroup(members: members),
      state.value.warnedMismatch.insert(index).inserted
    {
      log(
        .warning,
        "\(config.groups[index].name): bridge group \(configured) has other members than `lights`; sending per light")
    }
    return membership.bridgeGroup(members: members)
  }

  private func publishAll() {
    state.value.publisher.publishAll(model: state.value.model, bridgeReachable: state.value.bridgeReachable == true)
  }

  // MARK: Helpers

  private var now: Double { Double(NIODeadline.now().uptimeNanoseconds) / 1e9 }

  private func describe(_ error: any Error) -> String {
    client.redact((error as? BridgeClient.Failure)?.description ?? "\(error)")
  }

  /// Every line passes the redaction: the username never reaches a log.
  private func log(_ level: LogLevel, _ message: String) {
    logLine(level, client.redact(message))
  }
}
