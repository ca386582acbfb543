import FlicProtocol
import FlicdSimulator
import PatchbayTestSupport
import Testing

/// The simulator at socket level, checked packet by packet with a raw protocol client.
@Suite(.serialized) struct FlicdSimulatorTests {
  let server: FlicdServer

  init() throws {
    server = try .started(buttons: [(bedside, "bedside"), (hallway, "hallway")], scanWizardTimeout: .seconds(2))
  }

  func stop() { server.shutdown() }

  @Test func answersGetInfoWithTheVerifiedButtonsAndPing() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    client.send(.getInfo)
    let (event, _) = try client.waitFor("GetInfoResponse") {
      if case .getInfoResponse = $0 { true } else { false }
    }
    guard case .getInfoResponse(let info) = event else { return }
    #expect(info.verifiedButtons == [hallway, bedside].sorted())
    #expect(info.controllerState == .attached)
    client.send(.ping(pingID: 77))
    try client.waitFor("PingResponse 77") { $0 == .pingResponse(pingID: 77) }
  }

  @Test func opensAChannelAndDeliversEveryOpOfASingleClickInOrder() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    client.send(.createConnectionChannel(connectionID: 3, address: bedside, latencyMode: .low, autoDisconnectTime: 511))
    try client.waitFor("response") {
      $0 == .createConnectionChannelResponse(connectionID: 3, error: .noError, status: .disconnected)
    }
    try client.waitFor("ready") {
      $0 == .connectionStatusChanged(connectionID: 3, status: .ready, disconnectReason: .unspecified)
    }
    let start = client.received.count
    #expect(try server.perform("press 80:e4:da:71:b6:8e single") == "ok")
    let (_, last) = try client.waitFor("op 7 single click", after: start) {
      $0 == .buttonSingleOrDoubleClickOrHold(ButtonPress(connectionID: 3, clickType: .buttonSingleClick))
    }
    let press = { (type: ClickType) in ButtonPress(connectionID: 3, clickType: type) }
    #expect(
      Array(client.received[start...last]) == [
        .buttonUpOrDown(press(.buttonDown)), .buttonUpOrDown(press(.buttonUp)), .buttonClickOrHold(press(.buttonClick)),
        .buttonSingleOrDoubleClick(press(.buttonSingleClick)),
        .buttonSingleOrDoubleClickOrHold(press(.buttonSingleClick)),
      ])
  }

  @Test func storesPressesWhileOutOfRangeAndDeliversThemQueuedOnReconnect() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    client.send(
      .createConnectionChannel(connectionID: 1, address: hallway, latencyMode: .normal, autoDisconnectTime: 60))
    try client.waitFor("ready") {
      $0 == .connectionStatusChanged(connectionID: 1, status: .ready, disconnectReason: .unspecified)
    }
    #expect(try server.perform("disconnect 08:09:0a:0b:0c:0d") == "ok")
    try client.waitFor("disconnected") {
      $0 == .connectionStatusChanged(connectionID: 1, status: .disconnected, disconnectReason: .timedOut)
    }
    #expect(try server.perform("queued 08:09:0a:0b:0c:0d double 12") == "stored")
    #expect(try server.perform("reconnect 08:09:0a:0b:0c:0d") == "ok")
    let (_, ready) = try client.waitFor("ready again") {
      $0 == .connectionStatusChanged(connectionID: 1, status: .ready, disconnectReason: .unspecified)
    }
    let (event, _) = try client.waitFor("queued double click", after: ready) {
      if case .buttonSingleOrDoubleClickOrHold(let press) = $0 { press.clickType == .buttonDoubleClick } else { false }
    }
    guard case .buttonSingleOrDoubleClickOrHold(let press) = event else { return }
    #expect(press.wasQueued)
    #expect(press.timeDiff >= 12)
  }

  @Test func sendsBatteryToListenersAndButtonInfo() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    client.send(.createBatteryStatusListener(listenerID: 9, address: bedside))
    try client.waitFor("initial battery") {
      if case .batteryStatus(9, 100, _) = $0 { true } else { false }
    }
    #expect(try server.perform("battery 80:e4:da:71:b6:8e 42") == "ok")
    try client.waitFor("battery 42") {
      if case .batteryStatus(9, 42, _) = $0 { true } else { false }
    }
    client.send(.getButtonInfo(address: bedside))
    let (event, _) = try client.waitFor("button info") {
      if case .getButtonInfoResponse = $0 { true } else { false }
    }
    guard case .getButtonInfoResponse(let info) = event else { return }
    #expect(info.address == bedside)
    #expect(info.color == "white")
    #expect(!info.serialNumber.isEmpty)
    #expect(info.uuid.contains { $0 != 0 })
  }

  @Test func scanWizardPairsAPendingButton() throws {
    defer { stop() }
    let newButton = BluetoothAddress("80:e4:da:70:00:01")!
    let client = try RawFlicdClient(port: server.port)
    let watcher = try RawFlicdClient(port: server.port)
    client.send(.createScanWizard(scanWizardID: 4))
    #expect(try server.perform("add-pending-button 80:e4:da:70:00:01 F030abc") == "ok")
    let (_, found) = try client.waitFor("found") {
      $0 == .scanWizardFoundPublicButton(scanWizardID: 4, address: newButton, name: "F030abc")
    }
    let (_, connected) = try client.waitFor("connected", after: found) {
      $0 == .scanWizardButtonConnected(scanWizardID: 4)
    }
    try client.waitFor("completed", after: connected) { $0 == .scanWizardCompleted(scanWizardID: 4, result: .success) }
    try watcher.waitFor("other clients learn of it") { $0 == .newVerifiedButton(address: newButton) }
    client.send(.getInfo)
    try client.waitFor("verified list includes it") {
      if case .getInfoResponse(let info) = $0 { info.verifiedButtons.contains(newButton) } else { false }
    }
  }

  @Test func scanWizardTimesOutAndCanBeCancelled() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    client.send(.createScanWizard(scanWizardID: 1))
    try client.waitFor("timeout") { $0 == .scanWizardCompleted(scanWizardID: 1, result: .failedTimeout) }
    client.send(.createScanWizard(scanWizardID: 2))
    client.send(.cancelScanWizard(scanWizardID: 2))
    try client.waitFor("cancelled") { $0 == .scanWizardCompleted(scanWizardID: 2, result: .cancelledByUser) }
  }

  @Test func deliversPressesToEveryClientWatchingTheButton() throws {
    defer { stop() }
    let first = try RawFlicdClient(port: server.port)
    let second = try RawFlicdClient(port: server.port)
    first.send(
      .createConnectionChannel(connectionID: 1, address: bedside, latencyMode: .normal, autoDisconnectTime: 511))
    second.send(.createConnectionChannel(connectionID: 8, address: bedside, latencyMode: .low, autoDisconnectTime: 20))
    try first.waitFor("ready") {
      $0 == .connectionStatusChanged(connectionID: 1, status: .ready, disconnectReason: .unspecified)
    }
    try second.waitFor("ready at once") {
      $0 == .createConnectionChannelResponse(connectionID: 8, error: .noError, status: .ready)
    }
    _ = try server.perform("press 80:e4:da:71:b6:8e hold")
    try first.waitFor("hold on 1") { $0 == .buttonClickOrHold(ButtonPress(connectionID: 1, clickType: .buttonHold)) }
    try second.waitFor("hold on 8") { $0 == .buttonClickOrHold(ButtonPress(connectionID: 8, clickType: .buttonHold)) }
    first.send(.removeConnectionChannel(connectionID: 1))
    try first.waitFor("removed") { $0 == .connectionChannelRemoved(connectionID: 1, reason: .removedByThisClient) }
    second.send(.forceDisconnect(address: bedside))
    try second.waitFor("force removed") {
      $0 == .connectionChannelRemoved(connectionID: 8, reason: .forceDisconnectedByThisClient)
    }
  }

  @Test func closesAClientThatSendsGarbageAndKeepsServingOthers() throws {
    defer { stop() }
    let rude = try RawFlicdClient(port: server.port)
    rude.sendRaw([0x00, 0x00, 0x01])
    try rude.waitForClose()
    let polite = try RawFlicdClient(port: server.port)
    polite.sendRaw(framed([0x63, 1, 2, 3]))  // unknown opcode: ignored
    polite.send(.ping(pingID: 1))
    try polite.waitFor("pong") { $0 == .pingResponse(pingID: 1) }
  }

  /// A script's `sleep MS` answers once the time has passed, so the lines after it wait.
  @Test func sleepAnswersAfterItsTime() throws {
    defer { stop() }
    let clock = ContinuousClock()
    let began = clock.now
    #expect(try server.perform("sleep 200") == "ok")
    #expect(clock.now - began >= .milliseconds(200))
  }

  @Test func refusesUnknownControlCommandsWithUsage() {
    defer { stop() }
    #expect(throws: (any Error).self) { try server.perform("press 80:e4:da:71:b6:8e triple") }
    #expect(throws: (any Error).self) { try server.perform("press 11:22:33:44:55:66 single") }
    #expect(throws: (any Error).self) { try server.perform("frobnicate") }
  }
}
