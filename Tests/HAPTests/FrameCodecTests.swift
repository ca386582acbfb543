import HAP
import Testing

@Suite struct FrameCodecTests {
  let key = (0..<32).map { UInt8($0) }

  @Test func framesRoundTripAcrossTheFrameLimitAndPartialReads() throws {
    var writer = HAPFrameCodec(key: key)
    var reader = HAPFrameCodec(key: key)
    let message = (0..<3000).map { UInt8($0 % 256) }
    let sealed = writer.seal(message) + writer.seal([1, 2, 3])
    // 1024 + 1024 + 952, then 3: four frames, each with 2 length bytes and a 16-byte tag.
    #expect(sealed.count == 3000 + 3 + 4 * 18)
    var buffer: [UInt8] = []
    var opened: [UInt8] = []
    // Byte by byte: incomplete frames wait for more.
    for byte in sealed {
      buffer.append(byte)
      opened += try reader.open(&buffer)
    }
    #expect(opened == message + [1, 2, 3])
    #expect(buffer.isEmpty)
  }

  @Test func aTamperedTagOrLengthIsRejected() throws {
    var writer = HAPFrameCodec(key: key)
    let sealed = writer.seal(Array("GET /accessories HTTP/1.1\r\n\r\n".utf8))
    var tagged = sealed
    tagged[tagged.count - 1] ^= 1
    var reader = HAPFrameCodec(key: key)
    #expect(throws: HAPFrameCodec.Failure.authenticationFailed) { try reader.open(&tagged) }
    var lengthChanged = sealed
    lengthChanged.append(contentsOf: [0, 0])
    lengthChanged[0] -= 1
    var other = HAPFrameCodec(key: key)
    #expect(throws: HAPFrameCodec.Failure.authenticationFailed) { try other.open(&lengthChanged) }
    var tooLong: [UInt8] = [0x01, 0x08] + [UInt8](repeating: 0, count: 40)
    var third = HAPFrameCodec(key: key)
    #expect(throws: HAPFrameCodec.Failure.frameTooLong(0x801)) { try third.open(&tooLong) }
  }

  @Test func aReplayedFrameFailsBecauseTheNonceMovedOn() throws {
    var writer = HAPFrameCodec(key: key)
    let frame = writer.seal([42])
    var reader = HAPFrameCodec(key: key)
    var first = frame
    #expect(try reader.open(&first) == [42])
    var again = frame
    #expect(throws: HAPFrameCodec.Failure.authenticationFailed) { try reader.open(&again) }
  }
}
