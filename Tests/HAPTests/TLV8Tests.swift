import HAP
import Testing

@Suite struct TLV8Tests {
  @Test func itemsRoundTrip() throws {
    let items = [TLV8.Item(.state, [1]), TLV8.Item(.method, [0]), TLV8.Item(.identifier, Array("abc".utf8))]
    let bytes = TLV8.encode(items)
    #expect(bytes == [6, 1, 1, 0, 1, 0, 1, 3, 0x61, 0x62, 0x63])
    #expect(try TLV8.decode(bytes) == items)
  }

  @Test func longValuesAreFragmentedAndJoined() throws {
    let key = (0..<384).map { UInt8($0 % 251) }
    let bytes = TLV8.encode([TLV8.Item(.publicKey, key), TLV8.Item(.state, [2])])
    // 255 + 129, each with its own two-byte header, then the state.
    #expect(bytes.count == 2 + 255 + 2 + 129 + 3)
    #expect(Array(bytes[0..<2]) == [3, 255])
    #expect(Array(bytes[257..<259]) == [3, 129])
    let decoded = try TLV8.decode(bytes)
    #expect(decoded == [TLV8.Item(.publicKey, key), TLV8.Item(.state, [2])])
    // Exactly 255 bytes: one item; the next item of another type starts fresh.
    let exact = [UInt8](repeating: 7, count: 255)
    #expect(try TLV8.decode(TLV8.encode([TLV8.Item(.proof, exact), TLV8.Item(.proof, [1])])).count == 3)
  }

  @Test func sameTypeNeighboursAreSeparated() throws {
    let list = [
      TLV8.Item(.identifier, Array("one".utf8)), TLV8.Item(.identifier, Array("two".utf8)),
    ]
    let bytes = TLV8.encode(list)
    #expect(bytes == [1, 3] + Array("one".utf8) + [0xFF, 0, 1, 3] + Array("two".utf8))
    let decoded = try TLV8.decode(bytes)
    #expect(decoded.map(\.tag) == [1, 0xFF, 1])
    #expect(decoded.filter { $0.tag == 1 }.map(\.value) == [Array("one".utf8), Array("two".utf8)])
  }

  @Test func truncatedInputThrows() throws {
    #expect(throws: TLV8.DecodingError.self) { try TLV8.decode([6]) }
    #expect(throws: TLV8.DecodingError.self) { try TLV8.decode([6, 3, 1]) }
    #expect(try TLV8.decode([]) == [])
  }
}
