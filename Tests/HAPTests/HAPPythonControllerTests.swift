import HAP
import NIOPosix
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The controller side against a real accessory server: HAP-python 5.0.0 (PyPI, the library
/// behind Home Assistant's HomeKit Bridge) in its own process, paired by its setup code.
@Suite(.serialized) struct HAPPythonControllerTests {
  static let code = HAPSetupCode("518-08-582")!

  @Test func pairReadWriteEventsAndARemovedPairing() async throws {
    let accessory = try await HAPPythonAccessory.start(code: Self.code.description)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    // HAP-python's SRP and its answers are Python: on a loaded machine a request can take longer
    // than the default 30 s; a generous timeout costs nothing when it answers at once.
    let controller = HAPController(identity: .generate(), group: group, requestTimeout: .seconds(120))

    await #expect(throws: HAPClientError.pairing(.authentication, step: 4)) {
      try await controller.pairSetup(host: "127.0.0.1", port: accessory.port, code: HAPSetupCode("111-22-333")!)
    }
    let paired = try await controller.pairSetup(host: "127.0.0.1", port: accessory.port, code: Self.code)
    #expect(paired.pairingID == accessory.deviceID)
    let admins = try await accessory.send(["cmd": "pairings"])
    #expect(admins.objectValue?.keys.map { $0.uppercased() } == [controller.identity.pairingID])

    let session = try await controller.connect(host: "127.0.0.1", port: accessory.port, accessory: paired)
    let database = try await session.accessories()
    // The bridge and its five accessories.
    #expect(database["accessories"]?.arrayValue?.count == 6)
    let hue = try #require(Self.find(database, service: "43", characteristic: "13"))
    let contact = try #require(Self.find(database, service: "80", characteristic: "6A"))
    let button = try #require(Self.find(database, service: "89", characteristic: "73"))
    let plug = try #require(Self.find(database, service: "49", characteristic: "25"))

    // Write the bulb's hue: HAP-python's setter sees it, and it reads back.
    let written = try await session.write([HAPWrite(id: hue, value: .integer(120))])
    #expect(written.map(\.status) == [.success])
    try await accessory.waitForSetter("hue") { $0.doubleValue == 120 }
    let read = try await session.read([hue, contact, plug])
    #expect(read.map(\.status) == [.success, .success, .success])
    #expect(read.first?.value?.doubleValue == 120)
    #expect(read[1].value?.integerValue == 0)
    #expect(try await session.write([HAPWrite(id: plug, value: .bool(true))]).map(\.status) == [.success])
    try await accessory.waitForSetter("switch") { $0 == .bool(true) || $0 == .integer(1) }

    // HAP-python's set_value on the contact sensor (and a button press) arrive as events.
    let events = CollectedEvents(session)
    let subscribed = try await session.subscribe([contact, button])
    #expect(subscribed.map(\.status) == [.success, .success])
    try await accessory.send(["cmd": "contact", "value": 1])
    try await events.waitFor("the contact sensor's event") { values in
      values.contains { $0.id == contact && $0.value.integerValue == 1 }
    }
    try await accessory.send(["cmd": "press", "value": 2])
    try await events.waitFor("the button's event") { values in
      values.contains { $0.id == button && $0.value.integerValue == 2 }
    }

    let listed = try await session.listPairings()
    #expect(listed.map { $0.identifier.uppercased() } == [controller.identity.pairingID])
    #expect(listed.first?.publicKey == controller.identity.publicKey)
    #expect(listed.first?.isAdmin == true)

    // HAP-python forgets us on its side: the next pair-verify fails with authentication.
    try await accessory.send(["cmd": "unpair", "id": controller.identity.pairingID])
    let refused = await #expect(throws: HAPClientError.self) {
      try await controller.connect(host: "127.0.0.1", port: accessory.port, accessory: paired)
    }
    // HAP-python, unpaired once its last admin is gone, refuses already at M2 (ours at M4).
    #expect([.pairing(.authentication, step: 2), .pairing(.authentication, step: 4)].contains(refused))
    #expect(refused?.isAuthentication == true)
    print("pair-verify after HAP-python removed the pairing: \(refused.map(String.init(describing:)) ?? "-")")
    await session.close()
    try await group.shutdownGracefully()
  }

  /// The id of the first characteristic of `characteristic` type in a service of `service`
  /// type (short HAP types; HAP-python may send them long).
  static func find(_ database: JSONValue, service: String, characteristic: String) -> HAPCharacteristicID? {
    for accessory in database["accessories"]?.arrayValue ?? [] {
      guard let aid = accessory["aid"]?.integerValue else { continue }
      for candidate in accessory["services"]?.arrayValue ?? [] where shortType(candidate["type"]) == service {
        for item in candidate["characteristics"]?.arrayValue ?? [] where shortType(item["type"]) == characteristic {
          if let iid = item["iid"]?.integerValue { return HAPCharacteristicID(aid: aid, iid: iid) }
        }
      }
    }
    return nil
  }

  static func shortType(_ value: JSONValue?) -> String? {
    guard var text = value?.stringValue?.uppercased() else { return nil }
    if text.hasSuffix("-0000-1000-8000-0026BB765291") { text = String(text.prefix(8)) }
    let trimmed = text.drop { $0 == "0" }
    return trimmed.isEmpty ? "0" : String(trimmed)
  }
}
