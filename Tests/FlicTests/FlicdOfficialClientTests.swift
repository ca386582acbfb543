import FlicProtocol
import FlicdSimulator
import PatchbayTestSupport
import Testing

/// The simulator against what the official client library (fliclib) and its examples do, in
/// raw packets over TCP, as ProtocolDocumentation.md of the Flic Linux SDK describes flicd.
/// "Nothing was sent" is checked with a Ping behind the command: flicd answers a client's
/// commands in order, so the PingResponse comes after anything the command caused.
@Suite(.serialized) struct FlicdOfficialClientTests {
  let server: FlicdServer
  let newButton = BluetoothAddress("80:e4:da:70:00:02")!

  init() throws {
    server = try .started(buttons: [(bedside, "bedside"), (hallway, "hallway")], scanWizardTimeout: .seconds(2))
  }

  func stop() { server.shutdown() }

  /// Sends a Ping and waits for its answer: everything the earlier commands caused has arrived.
  func barrier(_ client: RawFlicdClient, _ id: UInt32) throws -> Int {
    client.send(.ping(pingID: id))
    return try client.waitFor("PingResponse \(id)") { $0 == .pingResponse(pingID: id) }.index
  }

  // MARK: DeleteButton

  @Test func deletingAButtonThatIsNotVerifiedStillAnswersThisClientOnly() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    let other = try RawFlicdClient(port: server.port)
    let unknown = BluetoothAddress("11:22:33:44:55:66")!
    client.send(.deleteButton(address: unknown))
    try client.waitFor("ButtonDeleted for this client") {
      $0 == .buttonDeleted(address: unknown, deletedByThisClient: true)
    }
    _ = try barrier(other, 1)
    #expect(!other.received.contains { if case .buttonDeleted = $0 { true } else { false } })

    // A verified button: every client hears of it, only the caller with deleted_by_this_client.
    client.send(.deleteButton(address: hallway))
    try client.waitFor("deleted by us") { $0 == .buttonDeleted(address: hallway, deletedByThisClient: true) }
    try other.waitFor("deleted by another") { $0 == .buttonDeleted(address: hallway, deletedByThisClient: false) }
  }

  // MARK: Existing ids do nothing

  @Test func creatingAConnectionChannelWithAnExistingIdDoesNothing() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    client.send(
      .createConnectionChannel(connectionID: 1, address: bedside, latencyMode: .normal, autoDisconnectTime: 511))
    try client.waitFor("ready") {
      $0 == .connectionStatusChanged(connectionID: 1, status: .ready, disconnectReason: .unspecified)
    }
    client.send(.createConnectionChannel(connectionID: 1, address: hallway, latencyMode: .low, autoDisconnectTime: 10))
    let end = try barrier(client, 2)
    let responses = client.received[..<end].filter {
      if case .createConnectionChannelResponse = $0 { true } else { false }
    }
    #expect(responses.count == 1)
    // Still the channel to bedside: a hallway press does not reach it, a bedside press does.
    _ = try server.perform("press 08:09:0a:0b:0c:0d hold")
    _ = try server.perform("press 80:e4:da:71:b6:8e hold")
    let (_, held) = try client.waitFor("bedside hold on channel 1") {
      $0 == .buttonClickOrHold(ButtonPress(connectionID: 1, clickType: .buttonHold))
    }
    #expect(client.received[..<held].filter { if case .buttonClickOrHold = $0 { true } else { false } }.isEmpty)
  }

  @Test func creatingAScanWizardWithAnExistingIdDoesNothing() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    #expect(try server.perform("add-private-button \(newButton) F030prv") == "ok")
    client.send(.createScanWizard(scanWizardID: 5))
    try client.waitFor("found private") { $0 == .scanWizardFoundPrivateButton(scanWizardID: 5) }
    client.send(.createScanWizard(scanWizardID: 5))
    let end = try barrier(client, 1)
    #expect(client.received[..<end].filter { $0 == .scanWizardFoundPrivateButton(scanWizardID: 5) }.count == 1)
    // One wizard, one give-up timer: exactly one completion.
    try client.waitFor("timed out") { $0 == .scanWizardCompleted(scanWizardID: 5, result: .failedTimeout) }
    let after = try barrier(client, 2)
    #expect(client.received[..<after].filter { if case .scanWizardCompleted = $0 { true } else { false } }.count == 1)
  }

  /// The second CreateScanWizard must not leave a timer behind: it would cancel a later wizard
  /// that reuses the id. Wizard 7, created right after, times out before that later wizard.
  @Test func aRepeatedScanWizardIdLeavesNoTimerBehind() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    client.send(.createScanWizard(scanWizardID: 5))
    client.send(.createScanWizard(scanWizardID: 5))
    client.send(.createScanWizard(scanWizardID: 7))
    _ = try barrier(client, 1)
    #expect(try server.perform("add-pending-button \(newButton) F030new") == "ok")
    try client.waitFor("wizard 5 paired") { $0 == .scanWizardCompleted(scanWizardID: 5, result: .success) }
    client.send(.createScanWizard(scanWizardID: 5))
    let (_, seven) = try client.waitFor("wizard 7 timed out") {
      $0 == .scanWizardCompleted(scanWizardID: 7, result: .failedTimeout)
    }
    let (_, five) = try client.waitFor("the new wizard 5 timed out") {
      $0 == .scanWizardCompleted(scanWizardID: 5, result: .failedTimeout)
    }
    #expect(five > seven, "\(client.received)")
  }

  @Test func creatingABatteryListenerOrScannerWithAnExistingIdDoesNothing() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    client.send(.createBatteryStatusListener(listenerID: 9, address: bedside))
    client.send(.createBatteryStatusListener(listenerID: 9, address: hallway))
    client.send(.createScanner(scanID: 3))
    client.send(.createScanner(scanID: 3))
    let end = try barrier(client, 1)
    let statuses = client.received[..<end].filter { if case .batteryStatus = $0 { true } else { false } }
    #expect(statuses.count == 1)
    let advertisements = client.received[..<end].filter { if case .advertisement = $0 { true } else { false } }
    #expect(advertisements.count == 2, "one per button in range, once")
    // The listener still watches bedside.
    _ = try server.perform("battery 80:e4:da:71:b6:8e 42")
    try client.waitFor("battery 42 for bedside") { if case .batteryStatus(9, 42, _) = $0 { true } else { false } }
  }

  // MARK: Bonding through a connection channel (scan_wizard.py)

  /// scan_wizard.py: a scanner sees an advertising button that is not verified, the client
  /// removes the scanner and opens a connection channel; flicd connects, bonds and verifies:
  /// Ready, then NewVerifiedButton to every client.
  @Test func aConnectionChannelToAnAdvertisingPublicButtonBondsWithIt() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    let watcher = try RawFlicdClient(port: server.port)
    client.send(.createScanner(scanID: 1))
    #expect(try server.perform("add-pending-button \(newButton) F030new") == "ok")
    let (advertised, _) = try client.waitFor("advertisement of the new button") {
      if case .advertisement(let packet) = $0 { packet.address == newButton } else { false }
    }
    guard case .advertisement(let packet) = advertised else { return }
    #expect(!packet.isPrivate && !packet.alreadyVerified)
    client.send(.removeScanner(scanID: 1))
    client.send(
      .createConnectionChannel(connectionID: 7, address: newButton, latencyMode: .normal, autoDisconnectTime: 511))
    let (_, response) = try client.waitFor("response") {
      $0 == .createConnectionChannelResponse(connectionID: 7, error: .noError, status: .disconnected)
    }
    let (_, connected) = try client.waitFor("connected", after: response) {
      $0 == .connectionStatusChanged(connectionID: 7, status: .connected, disconnectReason: .unspecified)
    }
    let (_, ready) = try client.waitFor("ready", after: connected) {
      $0 == .connectionStatusChanged(connectionID: 7, status: .ready, disconnectReason: .unspecified)
    }
    try client.waitFor("verified, just after Ready", after: ready) { $0 == .newVerifiedButton(address: newButton) }
    try watcher.waitFor("other clients learn of it") { $0 == .newVerifiedButton(address: newButton) }
    client.send(.getInfo)
    try client.waitFor("verified list includes it") {
      if case .getInfoResponse(let info) = $0 { info.verifiedButtons.contains(newButton) } else { false }
    }
    _ = try server.perform("press \(newButton) hold")
    try client.waitFor("its presses arrive") {
      $0 == .buttonClickOrHold(ButtonPress(connectionID: 7, clickType: .buttonHold))
    }
  }

  /// A private button refuses to bond: the channel is removed with ButtonIsPrivate. Held for
  /// 7 s it turns public, advertises again, and a new channel bonds.
  @Test func aPrivateButtonRefusesToBondUntilItIsMadePublic() throws {
    defer { stop() }
    let client = try RawFlicdClient(port: server.port)
    client.send(.createScanner(scanID: 1))
    #expect(try server.perform("add-private-button \(newButton) F030prv") == "ok")
    let (privateAdvertisement, _) = try client.waitFor("private advertisement") {
      if case .advertisement(let packet) = $0 { packet.address == newButton } else { false }
    }
    guard case .advertisement(let first) = privateAdvertisement else { return }
    #expect(first.isPrivate)
    client.send(
      .createConnectionChannel(connectionID: 2, address: newButton, latencyMode: .normal, autoDisconnectTime: 511))
    let (_, removed) = try client.waitFor("removed: private") {
      $0 == .connectionChannelRemoved(connectionID: 2, reason: .buttonIsPrivate)
    }
    #expect(try server.perform("make-public \(newButton)") == "ok")
    let (publicAdvertisement, _) = try client.waitFor("public advertisement", after: removed) {
      if case .advertisement(let packet) = $0 { packet.address == newButton && !packet.isPrivate } else { false }
    }
    #expect(publicAdvertisement != privateAdvertisement)
    client.send(
      .createConnectionChannel(connectionID: 2, address: newButton, latencyMode: .normal, autoDisconnectTime: 511))
    try client.waitFor("ready", after: removed) {
      $0 == .connectionStatusChanged(connectionID: 2, status: .ready, disconnectReason: .unspecified)
    }
    try client.waitFor("verified") { $0 == .newVerifiedButton(address: newButton) }
  }
}
