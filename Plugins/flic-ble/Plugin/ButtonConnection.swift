import FlicBLEBlueZ
import FlicBLEProtocol
import PatchbayPluginKit

/// Which of a Twist's dials moved: the dial (a slot's), or the dial turned while pushed.
enum TwistDialKind { case dial, pushed }

/// One configured button's life on the bus thread: reads its pairing, connects through BlueZ
/// when the device is there, quick-verifies, starts events from the persisted cursor, publishes
/// presses, and after any loss retries with back-off. A button reset by its owner is reported
/// once with what to do, and its pairing set aside.
final class ButtonConnection {
  /// What a connection reports; called on the bus thread.
  struct Events {
    /// A press of the button (0), or of a Duo's small button (1).
    var button: (_ index: Int, ButtonEvent) -> Void
    /// A Duo's swipe across its button (0) or small button (1).
    var swipe: (_ index: Int, _ direction: String) -> Void
    /// A Twist's dial (the active slot's, or mode 12's while pushed in dimmer mode), in percent.
    var twist: (_ which: TwistDialKind, _ percent: Double) -> Void
    /// A Twist's slot (0...11) picked in selector mode.
    var slot: (Int) -> Void
    var connected: (Bool) -> Void
    var battery: (_ millivolts: UInt16) -> Void
    var log: (LogLevel, String) -> Void
  }

  let button: FlicBLEConfig.Button
  /// The instance's name, for the `pair` command the log suggests.
  let instance: String
  let client: BlueZClient
  let pairingFile: PairingFile
  let filter: PressFilter
  let trustedKeys: TrustedFactoryKeys
  let autoDisconnectSeconds: UInt16
  let events: Events
  private var stored: StoredButton?
  private var link: FlicGATTLink?
  private var retryTimer: UInt64?
  private var batteryTimer: UInt64?
  private var failuresInARow = 0
  private var connected: Bool?
  private var saidUnpaired = false
  private var saidMissing = false
  /// A Twist's positions per mode, kept across reconnects and (in `NAME.twist`) restarts: the
  /// Twist keeps none itself.
  private var twistPositions: [Int32] = []
  private var twistSlot = 0
  private let positionsFile: TwistPositionsFile
  /// A save of the positions waits until the dial has rested a moment (one write per turn, not per report).
  private var positionsTimer: UInt64?

  init(
    button: FlicBLEConfig.Button, instance: String, client: BlueZClient, stateDirectory: String, filter: PressFilter,
    trustedKeys: TrustedFactoryKeys, autoDisconnectSeconds: UInt16, events: Events
  ) {
    self.button = button
    self.instance = instance
    self.client = client
    pairingFile = PairingFile(stateDirectory: stateDirectory, button: button.name)
    positionsFile = TwistPositionsFile(stateDirectory: stateDirectory, button: button.name)
    if button.model == .twist { twistPositions = positionsFile.load() ?? [] }
    self.filter = filter
    self.trustedKeys = trustedKeys
    self.autoDisconnectSeconds = autoDisconnectSeconds
    self.events = events
  }

  var pairCommand: String { "patchbay flic-ble pair \(instance) \(button.name) --address \(button.address)" }

  /// Wants BlueZ to scan: paired, not linked, not waiting for a retry.
  var wantsDevice: Bool { stored != nil && link == nil }

  var hasLink: Bool { link != nil }

  func start() {
    setConnected(false)
    update()
  }

  func stop() {
    link?.close()
    link = nil
    if let retryTimer { client.bus.cancel(retryTimer) }
    if let batteryTimer { client.bus.cancel(batteryTimer) }
    if let positionsTimer {
      client.bus.cancel(positionsTimer)
      positionsFile.save(twistPositions)
    }
  }

  /// After any change of BlueZ's state.
  func update() {
    if let link {
      link.update()
      return
    }
    guard retryTimer == nil else { return }
    guard loadPairing() else { return }
    guard client.availability == .running, let device = client.objects.device(address: button.address.description)
    else { return }
    saidMissing = false
    connect(device)
  }

  func received(path: String, bytes: [UInt8]) { link?.received(path: path, bytes: bytes) }

  /// Reads the pairing when there is none yet: the tool may have written it since the last look.
  private func loadPairing() -> Bool {
    if stored != nil { return true }
    do {
      stored = try pairingFile.load()
      events.log(.info, "\(button.name): pairing found (\(pairingFile.path))")
      return true
    } catch {
      if !saidUnpaired {
        saidUnpaired = true
        let why = error == .missing ? "is not paired yet" : "has no usable pairing (\(error))"
        events.log(.warning, "\(button.name) (\(button.address)) \(why): hold it 7 s and run `\(pairCommand)`")
      }
      // Look again later without a file watcher: pairing is rare.
      retryTimer = client.bus.after(2) { [weak self] in
        self?.retryTimer = nil
        self?.update()
      }
      return false
    }
  }

  private func connect(_ device: String) {
    guard let stored else { return }
    let limits = InitButtonEventsRequest(
      eventCount: stored.cursor.eventCount, bootID: stored.cursor.bootID, autoDisconnectTime: autoDisconnectSeconds)
    let keys = trustedKeys
    let duo = button.model == .duo
    let twist =
      button.model == .twist
      ? FlicBLECentral.TwistSetup(selector: button.twistMode == .selector, positions: twistPositions) : nil
    let link = FlicGATTLink(
      client: client, device: device, twist: twist != nil,
      makeCentral: { mtu in
        FlicBLECentral(
          stored: stored, options: .init(mtu: mtu, trustedKeys: keys, duo: duo, eventLimits: limits, twist: twist))
      },
      events: .init(
        central: { [weak self] event in self?.handle(event) },
        ended: { [weak self] reason, _ in self?.linkEnded(reason) }))
    self.link = link
    events.log(.debug, "\(button.name): connecting to \(device)")
    link.start()
  }

  private func handle(_ event: CentralEvent) {
    switch event {
    case .verified:
      events.log(.debug, "\(button.name): quick verify passed")
    case .eventsStarted(let bootChanged, let queued):
      let failures = failuresInARow
      failuresInARow = 0
      events.log(
        .info,
        "\(button.name) connected\(failures > 0 ? " after \(failures) failed attempts" : "")"
          + "\(bootChanged ? " (the button restarted: a new battery?)" : "")\(queued ? "; queued presses follow" : "")")
      setConnected(true)
      askForBattery()
    case .button(let press):
      switch filter.translate(press) {
      case .publish(let value): events.button(press.buttonIndex, value)
      case .dropStale(let action, let age):
        events.log(
          .info,
          "dropped a queued \(action.configName) of \(button.name)\(press.buttonIndex == 1 ? "'s small button" : ""): "
            + "\(Int(age)) s old, older than max_queued_age_s = \(filter.maxQueuedAgeSeconds)")
      case .ignore: break
      }
    case .swipe(let swipe):
      if swipe.wasQueued && swipe.ageSeconds > filter.maxQueuedAgeSeconds {
        events.log(
          .info,
          "dropped a queued swipe \(swipe.direction.name) of \(button.name): \(Int(swipe.ageSeconds)) s old, "
            + "older than max_queued_age_s = \(filter.maxQueuedAgeSeconds)")
      } else {
        events.swipe(swipe.buttonIndex, swipe.direction.name)
      }
    case .cursor(let cursor):
      guard var current = stored else { return }
      current.cursor = cursor
      stored = current
      do { try pairingFile.save(current) } catch {
        events.log(.error, "\(button.name): \(error) (a press may be delivered again after a restart)")
      }
    case .battery(let millivolts): events.battery(millivolts)
    case .pairingGone:
      events.log(
        .error,
        "\(button.name) (\(button.address)) was reset by its owner and no longer knows this hub: hold it 7 s "
          + "and run `\(pairCommand)`")
      pairingFile.retire()
      stored = nil
      saidUnpaired = true
    case .failed(let failure):
      events.log(.warning, "\(button.name): session failed (\(failure))")
      link?.close()
      linkEnded("the session failed")
    case .linkEnded(let reason):
      events.log(.info, "\(button.name): the button ended the link (reason \(reason))")
      link?.close()
      linkEnded("the button ended the link")
    case .twistPosition(let mode, let units):
      if twistPositions.count < TwistPositionTracker.modeCount {
        twistPositions = Array(repeating: 0, count: TwistPositionTracker.modeCount)
      }
      guard Int(mode) < twistPositions.count else { return }
      if twistPositions[Int(mode)] != units {
        twistPositions[Int(mode)] = units
        savePositionsSoon()
      }
      if mode == TwistDial.slotChangingMode {
        if button.twistMode == .dimmer { events.twist(.pushed, Self.percent(units)) }
      } else if Int(mode) == twistSlot {
        events.twist(.dial, Self.percent(units))
      }
    case .twistSlot(let slot):
      // Each slot keeps its own level: the dial's value is now the new slot's.
      twistSlot = slot
      if button.twistMode == .selector { events.slot(slot) }
      if slot < twistPositions.count { events.twist(.dial, Self.percent(twistPositions[slot])) }
    case .paired, .queuedEventsDelivered, .name, .firmwareVersion:
      break
    }
  }

  private func savePositionsSoon() {
    guard positionsTimer == nil else { return }
    positionsTimer = client.bus.after(2) { [weak self] in
      guard let self else { return }
      self.positionsTimer = nil
      if !self.positionsFile.save(self.twistPositions) {
        self.events.log(
          .warning, "\(self.button.name): cannot write \(self.positionsFile.path) (the dial restarts at 0)")
      }
    }
  }

  /// Units of 1/49152 turn as percent, to a tenth (finer than any light's steps).
  static func percent(_ units: Int32) -> Double {
    (Double(units) * 1000 / Double(TwistDial.unitsPerTurn)).rounded() / 10
  }

  /// Now, and every hour while linked: a button that never disconnects reports its battery only when asked.
  private func askForBattery() {
    if let batteryTimer { client.bus.cancel(batteryTimer) }
    link?.request(.getBatteryLevel)
    batteryTimer = client.bus.after(3600) { [weak self] in
      guard let self, self.link != nil else { return }
      self.askForBattery()
    }
  }

  private func linkEnded(_ reason: String) {
    guard link != nil else { return }
    link = nil
    if let batteryTimer { client.bus.cancel(batteryTimer) }
    batteryTimer = nil
    setConnected(false)
    failuresInARow += 1
    // Short steps: a button comes back in range any moment, and its queued presses wait.
    let delay = min(10, 0.5 * Double(1 << min(failuresInARow - 1, 5))) * Double.random(in: 0.8...1.2)
    let level: LogLevel = failuresInARow == 1 || failuresInARow % 20 == 0 ? .warning : .debug
    events.log(
      level, "\(button.name): \(reason); retrying in \(Double(Int(delay * 10)) / 10) s (attempt \(failuresInARow))")
    retryTimer = client.bus.after(delay) { [weak self] in
      self?.retryTimer = nil
      self?.update()
    }
  }

  private func setConnected(_ value: Bool) {
    guard connected != value else { return }
    connected = value
    events.connected(value)
  }
}
