import Crypto
import FlicBLEBlueZ
import FlicBLEProtocol
import FlicBLESimulator
import Foundation
import Testing

/// A Flic Twist end to end in memory: its own factory key, pairing and quick verify without frame
/// headers, the push button's codes, the dial's positions per slot (bounded at both ends), the
/// selector, and queued presses once across reconnects.
@Suite struct TwistSessionTests {
  static let twistKey = SimulatedFlicButton.testFactoryKey(for: .twist)

  static func options(
    selector: Bool = false, positions: [Int32] = [], trusting key: Curve25519.Signing.PrivateKey = twistKey
  )
    -> FlicBLECentral.Options
  {
    FlicBLECentral.Options(
      trustedKeys: TrustedFactoryKeys(testOnlyKeys: [Array(key.publicKey.rawRepresentation)]),
      expectedAddress: SimulatedFlicButton.Identity().address,
      twist: .init(selector: selector, positions: positions))
  }

  static func twist(_ seed: UInt8) -> SimulatedFlicButton {
    SimulatedFlicButton(
      identity: .init(model: .twist, serialNumber: "TW00-C00001"), factoryKey: twistKey, random: .counting(seed))
  }

  static func gestures(_ events: [CentralEvent]) -> [ButtonAction] {
    events.compactMap {
      if case .button(let press) = $0, press.action != .down, press.action != .up { press.action } else { nil }
    }
  }

  static func positions(_ events: [CentralEvent]) -> [String] {
    events.compactMap { if case .twistPosition(let mode, let units) = $0 { "\(mode):\(units)" } else { nil } }
  }

  static func slots(_ events: [CentralEvent]) -> [Int] {
    events.compactMap { if case .twistSlot(let slot) = $0 { slot } else { nil } }
  }

  @Test func aTwistSignedByTheFlic2KeyIsNotGenuine() {
    var link = InMemoryLink(
      button: Self.twist(1), stored: nil, options: Self.options(trusting: InMemoryLink.factoryKey))
    #expect(link.drain().contains(.failed(.notGenuine)))
  }

  @Test func aTwistPairsClicksAndTurnsWithinOneTurn() throws {
    var link = InMemoryLink(button: Self.twist(2), stored: nil, options: Self.options())
    let events = link.drain()
    let stored = try #require(events.compactMap { if case .paired(let button) = $0 { button } else { nil } }.first)
    #expect(stored.serialNumber == "TW00-C00001")
    #expect(events.contains(.battery(millivolts: 3000)), "the Twist's battery field is millivolts")
    #expect(link.central.state == .established)

    link.press(.click)
    link.press(.doubleClick)
    link.press(.hold)
    #expect(Self.gestures(link.drain()) == [.click, .doubleClick, .hold])

    link.deliver(notifications: link.button.turnTwist(24576, pushed: false))
    link.deliver(notifications: link.button.turnTwist(-30000, pushed: false))
    link.deliver(notifications: link.button.turnTwist(4096, pushed: false))
    link.deliver(notifications: link.button.turnTwist(100_000, pushed: false))
    link.deliver(notifications: link.button.turnTwist(-4096, pushed: false))
    #expect(Self.positions(link.drain()) == ["0:24576", "0:0", "0:4096", "0:49152", "0:45056"])
    #expect(link.central.twistPositions?[0] == link.button.twistPosition(mode: 0))

    try link.request(.getBatteryLevel)
    #expect(link.drain().contains(.battery(millivolts: 3000)))
  }

  @Test func theSelectorPicksSlotsAndEachKeepsItsPosition() throws {
    var link = InMemoryLink(button: Self.twist(3), stored: nil, options: Self.options(selector: true))
    _ = link.drain()
    link.deliver(notifications: link.button.turnTwist(12288, pushed: true))
    #expect(Self.slots(link.drain()) == [3])
    link.deliver(notifications: link.button.turnTwist(8192, pushed: false))
    link.press(.click)
    var events = link.drain()
    #expect(Self.positions(events) == ["3:8192"])
    #expect(Self.slots(events).isEmpty, "the click happened in slot 3 already")
    link.deliver(notifications: link.button.turnTwist(-12288, pushed: true))
    link.deliver(notifications: link.button.turnTwist(4096, pushed: false))
    events = link.drain()
    #expect(Self.slots(events) == [0])
    #expect(Self.positions(events) == ["12:0", "0:4096"])
    #expect(link.central.twistPositions?[3] == 8192)
  }

  @Test func queuedPressesArriveOnceAndPositionsAreRestoredAcrossReconnects() throws {
    var link = InMemoryLink(button: Self.twist(4), stored: nil, options: Self.options())
    var stored = try #require(
      link.drain().compactMap { if case .paired(let button) = $0 { button } else { nil } }.first)
    link.deliver(notifications: link.button.turnTwist(12288, pushed: false))
    link.press(.click)
    stored.cursor = try #require(link.central.cursor)
    let positions = try #require(link.central.twistPositions)
    _ = link.drain()

    var button = link.button
    button.disconnect()
    _ = button.press(.doubleClick)
    button.advance(seconds: 2)
    var again = InMemoryLink(button: button, stored: stored, options: Self.options(positions: positions))
    var events = again.drain()
    #expect(events.contains(.verified))
    #expect(Self.gestures(events) == [.doubleClick])
    #expect(
      events.contains { if case .button(let press) = $0 { press.wasQueued && press.ageSeconds >= 2 } else { false } })
    #expect(again.button.twistPosition(mode: 0) == 12288, "the hub's position was restored at init")
    stored.cursor = try #require(again.central.cursor)

    button = again.button
    button.disconnect()
    var third = InMemoryLink(button: button, stored: stored, options: Self.options(positions: positions))
    events = third.drain()
    #expect(Self.gestures(events).isEmpty, "nothing twice")
    #expect(third.central.state == .established)
    _ = third.button.press(.click)
  }

  @Test func aForgottenPairingIsReported() throws {
    var link = InMemoryLink(button: Self.twist(5), stored: nil, options: Self.options())
    let stored = try #require(
      link.drain().compactMap { if case .paired(let button) = $0 { button } else { nil } }.first)
    var button = link.button
    _ = button.resetByOwner()
    let again = InMemoryLink(button: button, stored: stored, options: Self.options())
    #expect(again.events.contains(.pairingGone))
  }

  @Test func positionsSurviveInTheStateDirectoryAndADamagedFileIsNone() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("twist-positions-\(getpid())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = TwistPositionsFile(stateDirectory: directory, button: "dial")
    #expect(file.load() == nil)
    let positions: [Int32] = [24576, 0, 0, 8192, 0, 0, 0, 0, 0, 0, 0, 0, 49152]
    #expect(file.save(positions))
    #expect(file.load() == positions)
    #expect(file.save([1, 2, 3]))
    #expect(file.load() == nil, "13 positions or none")
  }

  @Test func twistMessagesSurviveTheirEncoding() throws {
    let rotation = TwistRotation(
      modeIndex: 12, totalDelta: -98304, minimumDelta: 0, maximumDelta: -49152, lastHubPacketCounter: 7,
      lastMinimumUpdateWasTop: true)
    for message: TwistFromButtonMessage in [
      .twistEvent(rotation), .batteryMillivolts(2950), .firmwareVersion(9), .quickVerifyNegative(tmpID: 5),
      .name("dial", timestampUTCMilliseconds: 1234, isSetResponse: true), .disconnectedVerifiedLink(reason: 1),
    ] {
      #expect(try TwistFromButtonMessage.decode(message.encoded()) == message)
    }
    let set = TwistToButtonMessage.setName("dial", timestampUTCMilliseconds: 1_700_000_000_000, force: true)
    #expect(try TwistToButtonMessage.decode(set.encoded()) == set)
    // pyflic-ble's layout: UTC ms shifted up one, force in bit 0.
    #expect(Array(set.encoded()[1..<7]) == Array((UInt64(1_700_000_000_000) << 1 | 1).littleEndianBytes(6)))
  }
}

extension UInt64 {
  fileprivate func littleEndianBytes(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) }
  }
}
