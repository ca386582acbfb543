import Foundation
import HAP
import PatchbayTestSupport
import PatchbayValues
import Testing

/// Bad input costs only the connection that sent it: the server goes on serving a good
/// controller (aiohomekit) after each.
@Suite(.serialized) struct HostileInputTests {
  static let pin = ServerUnderTest.code.description

  /// The good client reads the switch.
  func goodClientReads(_ controller: AiohomekitController, name: String = "admin") async throws {
    let read = try await controller.send(["cmd": "get", "name": name, "ids": [[2, 9]]])
    #expect(read["2.9", "value"] == .bool(false))
  }

  func answer(_ connection: RawConnection, until text: String = "\r\n\r\n") async throws -> String {
    try await offPool { connection.read(until: text, within: 30) }
  }

  func closed(_ connection: RawConnection) async throws -> (closed: Bool, text: String) {
    let result = try await offPool { connection.readUntilClosed(within: 30) }
    return (result.closed, String(decoding: result.received, as: UTF8.self))
  }

  @Test func plaintextGarbageAndOversizedBodiesBeforePairVerify() async throws {
    let hub = try await ServerUnderTest()
    // Anything but pair-setup, pair-verify and identify before pair-verify: 470, connection kept.
    let early = try RawConnection(port: hub.port)
    early.send("GET /accessories HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(try await answer(early).hasPrefix("HTTP/1.1 470"))
    early.send("POST /identify HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    #expect(try await answer(early).hasPrefix("HTTP/1.1 204"))
    #expect(hub.accessories.recorded.withLock { $0.identifies } == 1)

    let garbage = try RawConnection(port: hub.port)
    garbage.send([0x00, 0x13, 0xFF] + Array("not http at all\r\n\r\n".utf8))
    let garbageAnswer = try await closed(garbage)
    #expect(garbageAnswer.closed && garbageAnswer.text.hasPrefix("HTTP/1.1 400"))

    let huge = try RawConnection(port: hub.port)
    huge.send("POST /pair-setup HTTP/1.1\r\nContent-Length: 1048576\r\n\r\n")
    huge.send([UInt8](repeating: 0x41, count: 1 << 20))
    let hugeAnswer = try await closed(huge)
    #expect(hugeAnswer.closed && hugeAnswer.text.hasPrefix("HTTP/1.1 413"))

    let endless = try RawConnection(port: hub.port)
    endless.send("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 20000))
    #expect(try await closed(endless).closed)

    // A TLV body that does not decode.
    let badTLV = try RawConnection(port: hub.port)
    badTLV.send("POST /pair-setup HTTP/1.1\r\nContent-Length: 3\r\n\r\n\u{06}\u{05}\u{01}")
    #expect(try await answer(badTLV).hasPrefix("HTTP/1.1 400"))

    let controller = try await AiohomekitController.start(port: hub.port)
    try await controller.send(["cmd": "pair", "pin": Self.pin])
    try await goodClientReads(controller)
    // Paired: identify is refused.
    early.send("POST /identify HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    #expect(try await answer(early, until: "}").contains("-70401"))
    await hub.stop()
  }

  @Test func wrongTagsTruncatedFramesAndHugeBodiesAfterPairVerify() async throws {
    let hub = try await ServerUnderTest()
    let admin = try await AiohomekitController.start(port: hub.port)
    let data = try await admin.send(["cmd": "pair", "pin": Self.pin]).foundation
    try await goodClientReads(admin)

    // A frame whose tag does not authenticate: that session is closed.
    let victim = try await AiohomekitController.start(port: hub.port)
    try await victim.send(["cmd": "load", "name": "victim", "data": data])
    try await goodClientReads(victim, name: "victim")
    let badFrame: [UInt8] = [5, 0] + [1, 2, 3, 4, 5] + [UInt8](repeating: 0xAB, count: 16)
    try await victim.send(["cmd": "raw_write", "name": "victim", "hex": hex(badFrame)])
    #expect(try await victim.send(["cmd": "wait_closed", "name": "victim"]) == .bool(true))
    try await goodClientReads(admin)

    // A truncated frame: the server waits for the rest; the other session is unaffected.
    try await goodClientReads(victim, name: "victim")  // aiohomekit reconnected and verified again
    try await victim.send(["cmd": "raw_write", "name": "victim", "hex": hex([0x40, 0x00, 1, 2, 3])])
    try await goodClientReads(admin)
    try await victim.send(["cmd": "close", "name": "victim"])

    // A frame length over 1024: closed.
    let third = try await AiohomekitController.start(port: hub.port)
    try await third.send(["cmd": "load", "name": "third", "data": data])
    try await goodClientReads(third, name: "third")
    try await third.send([
      "cmd": "raw_write", "name": "third", "hex": hex([0xFF, 0xFF] + [UInt8](repeating: 0, count: 64)),
    ])
    #expect(try await third.send(["cmd": "wait_closed", "name": "third"]) == .bool(true))

    // A 1 MB body inside the session: 413 and closed.
    let fourth = try await AiohomekitController.start(port: hub.port)
    try await fourth.send(["cmd": "load", "name": "fourth", "data": data])
    try await goodClientReads(fourth, name: "fourth")
    let big = String(repeating: "x", count: 1 << 20)
    _ = try? await fourth.send(["cmd": "put_raw", "name": "fourth", "body": ["characteristics": [], "pad": big]])
    #expect(try await fourth.send(["cmd": "wait_closed", "name": "fourth"]) == .bool(true))

    try await goodClientReads(admin)
    await hub.stop()
  }

  @Test func twoHundredConnectionsAtOnceAreBounded() async throws {
    let hub = try await ServerUnderTest(maxConnections: 32)
    let admin = try await AiohomekitController.start(port: hub.port)
    let data = try await admin.send(["cmd": "pair", "pin": Self.pin]).foundation
    try await goodClientReads(admin)

    // Those over the bound are closed at once; the others are answered 470 and stay open.
    var flood: [RawConnection]? = try await offPool {
      let flood = try (0..<200).map { _ in try RawConnection(port: hub.port) }
      for connection in flood { connection.send("GET /accessories HTTP/1.1\r\n\r\n") }
      let closedCount = flood.filter { $0.readUntilClosed(within: 30, orUntil: "HTTP/1.1 470").closed }.count
      #expect(closedCount >= 200 - 31 && closedCount < 200)
      #expect(hub.server.connectionCount <= 32)
      return flood
    }
    // The established session goes on during the flood.
    try await goodClientReads(admin)
    #expect(flood?.count == 200)
    flood = nil
    // Once the flood is gone, a new controller gets in again.
    try await offPool {
      try eventually("the flood's connections to be gone", within: 60) { hub.server.connectionCount == 1 }
    }
    let later = try await AiohomekitController.start(port: hub.port)
    try await later.send(["cmd": "load", "data": data])
    try await goodClientReads(later)
    await hub.stop()
  }
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
