import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// Bad input against the real plugin's port costs only the connection that sent it: after
/// each, the hub answers, the homekit instance runs in the same process, and a paired
/// aiohomekit session (never closed) still reads and writes.
@Suite(.serialized) struct HomeKitHostileInputTests {
  let bridge: HomeKitBridgeUnderTest
  let port: Int
  let pid: Int32
  let admin: AiohomekitController
  let pairing: JSONValue
  let heater: [Int]
  let heaterKey: String
  let lamp: [Int]
  let lampKey: String

  init() throws {
    bridge = try HomeKitBridgeUnderTest(name: "Hostile Bridge")
    try bridge.writeConfig(
      accessories: HubTOML().accessory("Heater", service: "switch").accessory("Lamp", service: "switch"),
      probePorts: [.state("heater_on", "bool")],
      extra: HubTOML().route(from: "homekit.heater.on.set", to: "probe.heater_on"))
    try bridge.start()
    port = try bridge.port()
    pid = try bridge.pluginPID()
    admin = try AiohomekitController(port: port)
    pairing = try admin.send(["cmd": "pair", "pin": try bridge.identity("setup_code")])
    let accessories = ListedAccessories(json: try admin.send(["cmd": "accessories"]))
    heater = try #require(accessories.id("Heater", "25"))
    heaterKey = try #require(accessories.key("Heater", "25"))
    lamp = try #require(accessories.id("Lamp", "25"))
    lampKey = try #require(accessories.key("Lamp", "25"))
    try admin.send(["cmd": "subscribe", "ids": [lamp]])
  }

  /// Everything still works: the hub, the same plugin process, the admin's unbroken session
  /// (a write of the heater that reaches the hub, an event for a hub-side change of the lamp).
  func everythingStillWorks(_ step: String) throws {
    #expect(try bridge.hub.instanceStatus("homekit")?["phase"] as? String == "running", "after \(step)")
    #expect(try bridge.pluginPID() == pid, "after \(step): the plugin process was replaced\n\(bridge.hub.log)")
    #expect(try admin.send(["cmd": "disconnects"]) == .integer(0), "after \(step): the admin's session was closed")
    let read = try admin.send(["cmd": "get", "ids": [heater, lamp]])
    let heaterOn = !(read[heaterKey, "value"]?.boolValue ?? true)
    try admin.send(["cmd": "put", "values": [[heater[0], heater[1], heaterOn]]])
    try eventually("after \(step): heater_on \(heaterOn) recorded: \(bridge.recorded())") {
      bridge.recorded().last == #"{"port":"heater_on","value":\#(heaterOn)}"#
    }
    let lampOn = !(read[lampKey, "value"]?.boolValue ?? true)
    try bridge.hub.send("homekit.lamp.on", "\(lampOn)")
    try admin.waitForEvent { events in events.last?[self.lampKey, "value"] == .bool(lampOn) }
  }

  func closed(_ connection: RawConnection) -> (closed: Bool, text: String) {
    let result = connection.readUntilClosed(within: 60)
    return (result.closed, String(decoding: result.received, as: UTF8.self))
  }

  @Test func garbageBeforePairVerifyCostsOnlyItsConnection() throws {
    let early = try RawConnection(port: port)
    early.send("GET /accessories HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(early.read(until: "\r\n\r\n", within: 60).hasPrefix("HTTP/1.1 470"))

    let garbage = try RawConnection(port: port)
    garbage.send([0x00, 0x13, 0xFF] + Array("not http at all\r\n\r\n".utf8))
    let garbageAnswer = closed(garbage)
    #expect(garbageAnswer.closed && garbageAnswer.text.hasPrefix("HTTP/1.1 400"), "\(garbageAnswer)")
    try everythingStillWorks("plaintext garbage")

    let huge = try RawConnection(port: port)
    huge.send("POST /pair-verify HTTP/1.1\r\nContent-Length: 1048576\r\n\r\n")
    huge.send([UInt8](repeating: 0x41, count: 1 << 20))
    let hugeAnswer = closed(huge)
    #expect(hugeAnswer.closed && hugeAnswer.text.hasPrefix("HTTP/1.1 413"), "\(hugeAnswer.text.prefix(100))")

    let endless = try RawConnection(port: port)
    endless.send("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 20000))
    #expect(closed(endless).closed)

    // A pair-verify M1 that is not TLV, then one with a public key of the wrong length.
    let badVerify = try RawConnection(port: port)
    badVerify.send("POST /pair-verify HTTP/1.1\r\nContent-Length: 3\r\n\r\n\u{06}\u{05}\u{01}")
    #expect(badVerify.read(until: "\r\n\r\n", within: 60).hasPrefix("HTTP/1.1 400"))
    let shortKey = try RawConnection(port: port)
    shortKey.send(
      [UInt8]("POST /pair-verify HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 8\r\n\r\n".utf8)
        + [0x06, 0x01, 0x01, 0x03, 0x03, 0x01, 0x02, 0x03])
    let shortKeyAnswer = shortKey.read(until: "\r\n\r\n", within: 60)
    #expect(shortKeyAnswer.hasPrefix("HTTP/1.1 "), "\(shortKeyAnswer)")
    try everythingStillWorks("garbage before pair-verify")
    print("aiohomekit transcript (hostile, before pair-verify):\n\(admin.transcript)")
  }

  @Test func garbageWrongTagsTruncatedFramesAndHugeBodiesAfterPairVerify() throws {
    // Each attacker is a session of its own (the same pairing, verified anew).
    func session(_ name: String) throws -> AiohomekitController {
      let controller = try AiohomekitController(port: port)
      try controller.send(["cmd": "load", "name": name, "data": pairing.foundation])
      #expect(try controller.send(["cmd": "get", "name": name, "ids": [heater]])[heaterKey] != nil)
      return controller
    }

    // Bytes that are no frame at all: the session is closed.
    let garbage = try session("garbage")
    try garbage.send([
      "cmd": "raw_write", "name": "garbage", "hex": hex(Array("GET /accessories HTTP/1.1\r\n\r\n".utf8)),
    ])
    #expect(try garbage.send(["cmd": "wait_closed", "name": "garbage"]) == .bool(true))
    try everythingStillWorks("plaintext after pair-verify")

    // A frame whose tag does not authenticate: closed.
    let wrongTag = try session("tag")
    let badFrame: [UInt8] = [5, 0] + [1, 2, 3, 4, 5] + [UInt8](repeating: 0xAB, count: 16)
    try wrongTag.send(["cmd": "raw_write", "name": "tag", "hex": hex(badFrame)])
    #expect(try wrongTag.send(["cmd": "wait_closed", "name": "tag"]) == .bool(true))
    try everythingStillWorks("a frame with a wrong tag")

    // A truncated frame: the bridge waits for the rest; nobody else notices.
    let truncated = try session("truncated")
    try truncated.send(["cmd": "raw_write", "name": "truncated", "hex": hex([0x40, 0x00, 1, 2, 3])])
    try everythingStillWorks("a truncated frame")
    try truncated.send(["cmd": "close", "name": "truncated"])

    // A frame length over 1024: closed.
    let long = try session("long")
    try long.send(["cmd": "raw_write", "name": "long", "hex": hex([0xFF, 0xFF] + [UInt8](repeating: 0, count: 64))])
    #expect(try long.send(["cmd": "wait_closed", "name": "long"]) == .bool(true))
    try everythingStillWorks("a frame over 1024 bytes")

    // A 1 MB body inside the session: closed.
    let big = try session("big")
    _ = try? big.send([
      "cmd": "put_raw", "name": "big", "body": ["characteristics": [], "pad": String(repeating: "x", count: 1 << 20)],
    ])
    #expect(try big.send(["cmd": "wait_closed", "name": "big"]) == .bool(true))
    try everythingStillWorks("a 1 MB body")
    print("aiohomekit transcript (hostile, after pair-verify):\n\(admin.transcript)")
  }

  @Test func twoHundredConnectionsAtOnceAreBounded() throws {
    var flood: [RawConnection]? = try (0..<200).map { _ in try RawConnection(port: port) }
    for connection in flood ?? [] { connection.send("GET /accessories HTTP/1.1\r\n\r\n") }
    // Those over the bound are closed at once; the others are answered 470 and stay open.
    let closedCount = (flood ?? []).filter { $0.readUntilClosed(within: 60, orUntil: "HTTP/1.1 470").closed }.count
    #expect(closedCount >= 200 - 31 && closedCount < 200, "\(closedCount) of 200 closed")
    // The established session goes on during the flood.
    try everythingStillWorks("200 connections (open)")
    // Once the flood is gone, a new session gets in again.
    flood = nil
    let later = try AiohomekitController(port: port)
    try later.send(["cmd": "load", "data": pairing.foundation])
    try eventually("a new session once the flood is gone", within: 240) {
      (try? later.send(["cmd": "get", "ids": [heater]]))?[heaterKey] != nil
    }
    try everythingStillWorks("200 connections (closed)")
  }
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
