import FlicProtocol
import Foundation
import NIOCore

/// The state and behaviour of a simulated flicd: buttons, clients and their channels, scan
/// wizards, presses. Every method runs on `loop` (one thread), so the state needs no locks;
/// what reaches it from elsewhere holds it in a `NIOLoopBound`, which checks that.
final class SimulatedDaemon {
  let loop: EventLoop
  let log: EventLog
  let scanWizardTimeout: TimeAmount
  let controllerAddress = BluetoothAddress("00:1a:7d:da:71:13")!

  private var buttons: [BluetoothAddress: SimulatedButton] = [:]
  /// Buttons advertising in pairing range but not verified, first come first paired by a scan
  /// wizard or by a connection channel to their address. Private ones are only announced.
  private var pendingButtons: [SimulatedButton] = []
  /// Pending buttons a connection channel is bonding with right now.
  private var bonding: Set<BluetoothAddress> = []
  private var sessions: [Int: FlicdClientSession] = [:]
  private var nextSessionID = 1
  /// `wait-channel` requests, answered when some client's channel to their button is Ready.
  private var readyWaiters: [Int: (address: BluetoothAddress, promise: EventLoopPromise<Void>)] = [:]
  private var nextWaiterID = 1

  init(loop: EventLoop, log: EventLog, buttons: [(BluetoothAddress, String)], scanWizardTimeout: TimeAmount) {
    self.loop = loop
    self.log = log
    self.scanWizardTimeout = scanWizardTimeout
    for (address, name) in buttons {
      self.buttons[address] = SimulatedButton(address: address, name: name, verified: true)
    }
  }

  // MARK: Clients

  func clientConnected(_ channel: Channel) -> FlicdClientSession {
    let session = FlicdClientSession(id: nextSessionID, channel: channel)
    nextSessionID += 1
    sessions[session.id] = session
    log.line("client \(session.id) connected from \(channel.remoteAddress.map { "\($0)" } ?? "?")")
    return session
  }

  func clientDisconnected(_ session: FlicdClientSession) {
    for timer in session.scanWizards.values { timer.cancel() }
    sessions[session.id] = nil
    log.line("client \(session.id) disconnected")
    for address in Set(session.connectionChannels.values.map(\.address)) { logRadioParameters(address) }
  }

  private func send(_ event: EventPacket, to session: FlicdClientSession, about address: BluetoothAddress? = nil) {
    session.send(event)
    defer { wakeReadyWaiters() }
    let subject = address.map { " [\($0)]" } ?? ""
    log.line("client \(session.id) <- \(event.logDescription)\(subject)")
  }

  /// Every link change reaches clients as an event: after each, the waiters whose button is
  /// now Ready are answered.
  private func wakeReadyWaiters() {
    for (id, waiter) in readyWaiters where isReady(waiter.address) {
      readyWaiters[id] = nil
      waiter.promise.succeed()
    }
  }

  // MARK: Commands from clients

  func handle(_ command: CommandPacket, from session: FlicdClientSession) {
    log.line("client \(session.id) -> \(command.logDescription)")
    switch command {
    case .getInfo:
      let verified = buttons.values.filter(\.verified).map(\.address).sorted()
      send(
        .getInfoResponse(
          DaemonInfo(
            controllerState: .attached, address: controllerAddress, addressType: .public, maxPendingConnections: 6,
            maxConcurrentlyConnectedButtons: -1, currentPendingConnections: UInt8(min(pendingChannelCount, 255)),
            currentlyNoSpace: false, verifiedButtons: verified)), to: session)

    case .createScanner(let scanID):
      // An existing scanner id: flicd does nothing.
      guard session.scanners.insert(scanID).inserted else { return }
      // One advertisement per button in range, as a scan would see them once.
      for button in (buttons.values.filter(\.inRange) + pendingButtons).sorted(by: { $0.address < $1.address }) {
        advertise(button, scanner: scanID, to: session)
      }

    case .removeScanner(let scanID):
      session.scanners.remove(scanID)

    case .createConnectionChannel(let id, let address, let latency, let autoDisconnect):
      // An existing conn_id: flicd does nothing, not even answer.
      guard session.connectionChannels[id] == nil else { return }
      let wasReady = isReady(address)
      session.connectionChannels[id] = FlicdClientSession.ConnectionChannel(
        address: address, latencyMode: latency, autoDisconnectTime: autoDisconnect)
      logRadioParameters(address)
      if wasReady {
        send(
          .createConnectionChannelResponse(connectionID: id, error: .noError, status: .ready), to: session,
          about: address)
      } else {
        send(
          .createConnectionChannelResponse(connectionID: id, error: .noError, status: .disconnected), to: session,
          about: address)
        if let button = buttons[address], button.verified, button.inRange {
          // The first channel to a button in range makes flicd link to it.
          announceLink(address)
        } else if buttons[address]?.verified != true {
          bond(address)
        }
      }

    case .removeConnectionChannel(let id):
      if let channel = session.connectionChannels.removeValue(forKey: id) {
        send(
          .connectionChannelRemoved(connectionID: id, reason: .removedByThisClient), to: session, about: channel.address
        )
        logRadioParameters(channel.address)
      }

    case .forceDisconnect(let address):
      removeChannels(
        of: address, caller: session, thisClient: .forceDisconnectedByThisClient,
        otherClient: .forceDisconnectedByOtherClient)

    case .changeModeParameters(let id, let latency, let autoDisconnect):
      if var channel = session.connectionChannels[id] {
        channel.latencyMode = latency
        channel.autoDisconnectTime = autoDisconnect
        session.connectionChannels[id] = channel
        logRadioParameters(channel.address)
      }

    case .ping(let pingID):
      send(.pingResponse(pingID: pingID), to: session)

    case .getButtonInfo(let address):
      let info =
        buttons[address]?.info
        ?? ButtonInfo(address: address, uuid: [], color: "", serialNumber: "", flicVersion: 0, firmwareVersion: 0)
      send(.getButtonInfoResponse(info), to: session, about: address)

    case .createScanWizard(let id):
      // An existing scan wizard id: flicd does nothing (the running wizard keeps its timer).
      guard session.scanWizards[id] == nil else { return }
      let timer = loop.assumeIsolated().scheduleTask(in: scanWizardTimeout) { [self] in
        finishScanWizard(id, of: session, result: .failedTimeout)
      }
      session.scanWizards[id] = timer
      runPendingScanWizards()

    case .cancelScanWizard(let id):
      finishScanWizard(id, of: session, result: .cancelledByUser)

    case .deleteButton(let address):
      removeChannels(of: address, caller: session, thisClient: .deletedByThisClient, otherClient: .deletedByOtherClient)
      if buttons[address]?.verified == true {
        buttons[address]?.verified = false
        for other in sortedSessions {
          send(.buttonDeleted(address: address, deletedByThisClient: other === session), to: other, about: address)
        }
      } else {
        // Not verified: nothing to delete, but flicd answers this client anyway.
        send(.buttonDeleted(address: address, deletedByThisClient: true), to: session, about: address)
      }

    case .createBatteryStatusListener(let id, let address):
      // An existing listener id: flicd does nothing.
      guard session.batteryListeners[id] == nil else { return }
      session.batteryListeners[id] = address
      // The listener learns the current level at once.
      send(
        .batteryStatus(
          listenerID: id, batteryPercentage: buttons[address]?.batteryPercentage ?? -1, timestamp: Self.now),
        to: session, about: address)

    case .removeBatteryStatusListener(let id):
      session.batteryListeners[id] = nil

    case .unknown(let opcode, _):
      log.line("client \(session.id) unknown command opcode \(opcode) ignored")
    }
  }

  private var sortedSessions: [FlicdClientSession] { sessions.values.sorted { $0.id < $1.id } }

  private var pendingChannelCount: Int {
    sessions.values.reduce(0) { count, session in
      count + session.connectionChannels.values.filter { !isReady($0.address) }.count
    }
  }

  /// A button is linked when it is paired, in range and at least one channel watches it.
  private func isReady(_ address: BluetoothAddress) -> Bool {
    guard let button = buttons[address], button.verified, button.inRange else { return false }
    return sessions.values.contains { !$0.channels(for: address).isEmpty }
  }

  private func removeChannels(
    of address: BluetoothAddress, caller: FlicdClientSession, thisClient: RemovedReason, otherClient: RemovedReason
  ) {
    for session in sortedSessions {
      for id in session.channels(for: address) {
        session.connectionChannels[id] = nil
        send(
          .connectionChannelRemoved(connectionID: id, reason: session === caller ? thisClient : otherClient),
          to: session, about: address)
      }
    }
  }

  /// Several channels may watch one button: the radio uses the lowest latency and the longest
  /// auto-disconnect time any of them asks for.
  private func logRadioParameters(_ address: BluetoothAddress) {
    let channels = sessions.values.flatMap { $0.connectionChannels.values.filter { $0.address == address } }
    guard !channels.isEmpty else { return }
    let rank: [LatencyMode: Int] = [.low: 0, .normal: 1, .high: 2]
    let latency = channels.map(\.latencyMode).min { rank[$0]! < rank[$1]! }!
    let autoDisconnect = channels.map(\.autoDisconnectTime).max()!
    log.line("radio [\(address)] channels=\(channels.count) latency=\(latency) auto_disconnect=\(autoDisconnect)")
  }

  /// One advertisement of `button` to a scanner.
  private func advertise(_ button: SimulatedButton, scanner scanID: UInt32, to session: FlicdClientSession) {
    send(
      .advertisement(
        Advertisement(
          scanID: scanID, address: button.address, name: button.name, rssi: -60, isPrivate: button.isPrivate,
          alreadyVerified: button.verified, alreadyConnectedToThisDevice: isReady(button.address),
          alreadyConnectedToOtherDevice: false)), to: session, about: button.address)
  }

  /// A button that starts advertising (or changes its mode) is seen by every running scanner.
  private func advertiseToScanners(_ button: SimulatedButton) {
    for session in sortedSessions {
      for scanID in session.scanners.sorted() { advertise(button, scanner: scanID, to: session) }
    }
  }

  // MARK: Bonding through a connection channel

  /// A channel to a button that advertises but is not verified makes flicd connect and bond
  /// with it, as the official `scan_wizard.py` expects: Connected, then Ready to every channel
  /// of the button followed by NewVerifiedButton to every client; a private button refuses,
  /// and its channels are removed with ButtonIsPrivate. A button nobody advertises stays
  /// Disconnected, as a pending connection does in flicd.
  private func bond(_ address: BluetoothAddress) {
    guard pendingButtons.contains(where: { $0.address == address }), bonding.insert(address).inserted else { return }
    loop.assumeIsolated().scheduleTask(in: .milliseconds(100)) { [self] in
      guard let button = pendingButtons.first(where: { $0.address == address }), hasChannels(address) else {
        bonding.remove(address)
        return
      }
      guard !button.isPrivate else {
        bonding.remove(address)
        for session in sortedSessions {
          for id in session.channels(for: address) {
            session.connectionChannels[id] = nil
            send(.connectionChannelRemoved(connectionID: id, reason: .buttonIsPrivate), to: session, about: address)
          }
        }
        return
      }
      forEachChannel(of: address) { session, id in
        send(
          .connectionStatusChanged(connectionID: id, status: .connected, disconnectReason: .unspecified), to: session,
          about: address)
      }
      loop.assumeIsolated().scheduleTask(in: .milliseconds(100)) { [self] in
        bonding.remove(address)
        guard let index = pendingButtons.firstIndex(where: { $0.address == address }), hasChannels(address) else {
          return
        }
        var paired = pendingButtons.remove(at: index)
        paired.verified = true
        paired.inRange = true
        buttons[address] = paired
        // flicd sends Ready just before NewVerifiedButton.
        forEachChannel(of: address) { session, id in
          send(
            .connectionStatusChanged(connectionID: id, status: .ready, disconnectReason: .unspecified), to: session,
            about: address)
        }
        for session in sortedSessions { send(.newVerifiedButton(address: address), to: session, about: address) }
        log.line("paired [\(address)] \(paired.name) through a connection channel")
      }
    }
  }

  private func hasChannels(_ address: BluetoothAddress) -> Bool {
    sessions.values.contains { !$0.channels(for: address).isEmpty }
  }

  private func forEachChannel(of address: BluetoothAddress, _ body: (FlicdClientSession, UInt32) -> Void) {
    for session in sortedSessions {
      for id in session.channels(for: address) { body(session, id) }
    }
  }

  // MARK: Link state

  /// Connected then Ready to every channel of the button, then its stored presses.
  private func announceLink(_ address: BluetoothAddress) {
    for session in sortedSessions {
      for id in session.channels(for: address) {
        send(
          .connectionStatusChanged(connectionID: id, status: .connected, disconnectReason: .unspecified), to: session,
          about: address)
        send(
          .connectionStatusChanged(connectionID: id, status: .ready, disconnectReason: .unspecified), to: session,
          about: address)
      }
    }
    guard var button = buttons[address], !button.storedPresses.isEmpty else { return }
    let stored = button.storedPresses
    button.storedPresses = []
    buttons[address] = button
    let now = ContinuousClock.now
    for press in stored {
      let waited = UInt32(clamping: (now - press.storedAt).components.seconds)
      deliver(press.gesture, to: address, queuedAge: press.ageSeconds &+ waited)
    }
  }

  private func announceLoss(_ address: BluetoothAddress) {
    for session in sortedSessions {
      for id in session.channels(for: address) {
        send(
          .connectionStatusChanged(connectionID: id, status: .disconnected, disconnectReason: .timedOut), to: session,
          about: address)
      }
    }
  }

  // MARK: Presses

  /// Sends a gesture's events to every channel watching the button. `queuedAge` nil is a live
  /// press with flicd's timing; otherwise a stored press replayed at once.
  private func deliver(_ gesture: PressGesture, to address: BluetoothAddress, queuedAge: UInt32?) {
    var delay = 0
    for step in gesture.steps(live: queuedAge == nil) {
      delay += step.delayMs
      let fire: () -> Void = { [self] in
        for session in sortedSessions {
          for id in session.channels(for: address) {
            let press = ButtonPress(
              connectionID: id, clickType: step.clickType, wasQueued: queuedAge != nil, timeDiff: queuedAge ?? 0)
            send(step.op.event(press), to: session, about: address)
          }
        }
      }
      if delay == 0 { fire() } else { loop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(delay)), fire) }
    }
  }

  // MARK: Scan wizard

  /// Gives each running wizard the next public pending button; a wizard that sees only
  /// private ones is told once (ScanWizardFoundPrivateButton) and keeps waiting.
  private func runPendingScanWizards() {
    for session in sortedSessions {
      for id in session.scanWizards.keys.sorted() {
        if let index = pendingButtons.firstIndex(where: { !$0.isPrivate && !bonding.contains($0.address) }) {
          pair(pendingButtons.remove(at: index), wizard: id, of: session)
        } else if pendingButtons.contains(where: \.isPrivate), session.scanWizardsToldPrivate.insert(id).inserted {
          send(.scanWizardFoundPrivateButton(scanWizardID: id), to: session)
        }
      }
    }
  }

  /// Found, connected, verified: the steps of a successful pairing, a little apart as on a radio.
  private func pair(_ button: SimulatedButton, wizard id: UInt32, of session: FlicdClientSession) {
    session.scanWizards[id]?.cancel()
    session.scanWizards[id] = nil
    session.scanWizardsToldPrivate.remove(id)
    let address = button.address
    send(
      .scanWizardFoundPublicButton(scanWizardID: id, address: address, name: button.name), to: session, about: address)
    loop.assumeIsolated().scheduleTask(in: .milliseconds(100)) { [self] in
      send(.scanWizardButtonConnected(scanWizardID: id), to: session, about: address)
    }
    loop.assumeIsolated().scheduleTask(in: .milliseconds(200)) { [self] in
      var paired = button
      paired.verified = true
      paired.inRange = true
      buttons[address] = paired
      for other in sortedSessions { send(.newVerifiedButton(address: address), to: other, about: address) }
      send(.scanWizardCompleted(scanWizardID: id, result: .success), to: session, about: address)
      log.line("paired [\(address)] \(button.name)")
      if isReady(address) { announceLink(address) }
    }
  }

  private func finishScanWizard(_ id: UInt32, of session: FlicdClientSession, result: ScanWizardResult) {
    guard let timer = session.scanWizards.removeValue(forKey: id) else { return }
    timer.cancel()
    session.scanWizardsToldPrivate.remove(id)
    send(.scanWizardCompleted(scanWizardID: id, result: result), to: session)
  }

  // MARK: Control commands

  /// Applies a control command that acts on the daemon; returns a one-line answer.
  func apply(_ command: ControlCommand) throws(ControlError) -> String {
    switch command {
    case .press(let address, let gesture):
      let button = try known(address)
      guard button.inRange else {
        // Out of range the button keeps the press and delivers it, queued, on reconnect.
        buttons[address]?.storedPresses.append(StoredPress(gesture: gesture, ageSeconds: 0, storedAt: .now))
        log.line("press [\(address)] \(gesture.rawValue) stored (out of range)")
        return "stored"
      }
      log.line("press [\(address)] \(gesture.rawValue)")
      deliver(gesture, to: address, queuedAge: nil)
      return "ok"

    case .queued(let address, let gesture, let age):
      let button = try known(address)
      guard button.inRange else {
        buttons[address]?.storedPresses.append(StoredPress(gesture: gesture, ageSeconds: age, storedAt: .now))
        log.line("queued [\(address)] \(gesture.rawValue) age=\(age)s stored (out of range)")
        return "stored"
      }
      log.line("queued [\(address)] \(gesture.rawValue) age=\(age)s")
      deliver(gesture, to: address, queuedAge: age)
      return "ok"

    case .disconnect(let address):
      guard try known(address).inRange else { return "already disconnected" }
      let wasReady = isReady(address)
      buttons[address]?.inRange = false
      log.line("button [\(address)] out of range")
      if wasReady { announceLoss(address) }
      return "ok"

    case .reconnect(let address):
      guard try !known(address).inRange else { return "already connected" }
      buttons[address]?.inRange = true
      log.line("button [\(address)] back in range")
      if isReady(address) { announceLink(address) }
      return "ok"

    case .battery(let address, let percent):
      _ = try known(address)
      buttons[address]?.batteryPercentage = percent
      for session in sortedSessions {
        for (id, listened) in session.batteryListeners.sorted(by: { $0.key < $1.key }) where listened == address {
          send(
            .batteryStatus(listenerID: id, batteryPercentage: percent, timestamp: Self.now), to: session, about: address
          )
        }
      }
      return "ok"

    case .addButton(let address, let name):
      buttons[address] = SimulatedButton(address: address, name: name, verified: true)
      log.line("button [\(address)] \(name) added (verified)")
      return "ok"

    case .addPendingButton(let address, let name, let isPrivate):
      var button = SimulatedButton(address: address, name: name, verified: false)
      button.isPrivate = isPrivate
      pendingButtons.append(button)
      log.line("button [\(address)] \(name) waiting to be paired\(isPrivate ? " (private)" : "")")
      advertiseToScanners(button)
      runPendingScanWizards()
      return "ok"

    case .makePublic(let address):
      guard let index = pendingButtons.firstIndex(where: { $0.address == address }) else {
        throw ControlError("make-public: \(address) is not a button waiting to be paired")
      }
      pendingButtons[index].isPrivate = false
      log.line("button [\(address)] held for 7 s: public")
      advertiseToScanners(pendingButtons[index])
      runPendingScanWizards()
      return "ok"

    case .status:
      let list = (buttons.values.sorted { $0.address < $1.address } + pendingButtons).map {
        "\($0.address)=\($0.name)\($0.verified ? "" : "(unpaired)")\($0.isPrivate ? "(private)" : "")"
          + "\($0.inRange ? "" : "(away)")"
      }
      return "clients=\(sessions.count) buttons=\(list.joined(separator: ","))"

    case .waitChannel, .sleep, .quit:
      return "ok"
    }
  }

  /// Completes once a client has a Ready channel to the button (for `wait-channel`); fails
  /// after `timeout`.
  func readyChannel(to address: BluetoothAddress, within timeout: TimeAmount) -> EventLoopFuture<Void> {
    if isReady(address) { return loop.makeSucceededVoidFuture() }
    let id = nextWaiterID
    nextWaiterID += 1
    let promise = loop.makePromise(of: Void.self)
    readyWaiters[id] = (address, promise)
    loop.assumeIsolated().scheduleTask(in: timeout) { [self] in
      readyWaiters.removeValue(forKey: id)?.promise.fail(ControlError("no ready channel in time"))
    }
    return promise.futureResult
  }

  private func known(_ address: BluetoothAddress) throws(ControlError) -> SimulatedButton {
    guard let button = buttons[address] else {
      throw ControlError("unknown button \(address); known: \(buttons.keys.sorted().map(\.description))")
    }
    return button
  }

  /// Unix time, as BatteryStatus reports it.
  static var now: Int64 { Int64(Date().timeIntervalSince1970) }
}
