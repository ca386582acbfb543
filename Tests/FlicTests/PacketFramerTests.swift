import FlicProtocol
import Testing

@Suite struct PacketFramerTests {
  @Test func splitsAStreamDeliveredOneByteAtATime() throws {
    let stream =
      EventPacket.pingResponse(pingID: 1).encoded() + framed([0x63, 1, 2, 3])
      + EventPacket.newVerifiedButton(address: bedside).encoded()
    var framer = PacketFramer()
    var packets: [[UInt8]] = []
    for byte in stream {
      framer.append([byte])
      while let packet = try framer.nextPacket() { packets.append(packet) }
    }
    #expect(packets.count == 3)
    #expect(try EventPacket.decode(packets[0]) == .pingResponse(pingID: 1))
    #expect(try EventPacket.decode(packets[1]) == .unknown(opcode: 0x63, fields: [1, 2, 3]))
    #expect(try EventPacket.decode(packets[2]) == .newVerifiedButton(address: bedside))
    #expect(framer.bufferedByteCount == 0)
  }

  @Test func splitsManyPacketsDeliveredAtOnce() throws {
    var framer = PacketFramer()
    let one = EventPacket.buttonUpOrDown(ButtonPress(connectionID: 1, clickType: .buttonUp)).encoded()
    framer.append(Array(repeating: one, count: 2000).joined())
    var count = 0
    while let packet = try framer.nextPacket() {
      #expect(try EventPacket.decode(packet) == .buttonUpOrDown(ButtonPress(connectionID: 1, clickType: .buttonUp)))
      count += 1
    }
    #expect(count == 2000)
  }

  @Test func waitsForTheRestOfAPacket() throws {
    var framer = PacketFramer()
    framer.append(le16(62) + [0x0e, 1, 2])
    #expect(try framer.nextPacket() == nil)
    #expect(framer.bufferedByteCount == 5)
  }

  @Test func refusesAZeroLength() {
    var framer = PacketFramer()
    framer.append([0, 0, 7])
    #expect(throws: FlicProtocolError.emptyPacket) { try framer.nextPacket() }
  }

  @Test func refusesALengthAboveTheLimit() {
    var framer = PacketFramer(maximumLength: 1024)
    framer.append(le16(1025))
    #expect(throws: FlicProtocolError.frameTooLong(length: 1025, maximum: 1024)) { try framer.nextPacket() }
  }
}
