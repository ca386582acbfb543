import Testing

@testable import HAP

/// The libgmp wrapper's byte layout and edge cases, beyond what SRPServerTests' vector reaches.
@Suite struct GMPIntegerTests {
  @Test func bytesRoundTripWithoutLeadingZeros() {
    #expect(GMPInteger(bigEndian: [0, 0, 1, 2, 3]).bigEndianBytes == [1, 2, 3])
    #expect(GMPInteger(bigEndian: [0, 0, 1, 2, 3]).padded(to: 6) == [0, 0, 0, 1, 2, 3])
    let long = (0..<100).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
    #expect(GMPInteger(bigEndian: long).bigEndianBytes == long)
    #expect(GMPInteger(bigEndian: []).bigEndianBytes == [0])
    #expect(GMPInteger(bigEndian: [0, 0]).isZero)
    #expect(GMPInteger(0).padded(to: 3) == [0, 0, 0])
    #expect(GMPInteger(hex: "1000000000000000000")?.bigEndianBytes == [1] + [UInt8](repeating: 0, count: 9))
    #expect(GMPInteger(hex: "not hex") == nil)
  }

  @Test func arithmetic() {
    let modulus = GMPInteger(1_000_003)
    #expect(GMPInteger(5).power(GMPInteger(3), modulus: modulus).bigEndianBytes == GMPInteger(125).bigEndianBytes)
    // 2^64 mod 1000003, from Python's pow(2, 64, 1000003) == 350687.
    #expect(GMPInteger(2).power(GMPInteger(64), modulus: modulus).bigEndianBytes == GMPInteger(350_687).bigEndianBytes)
    #expect(GMPInteger(7).power(GMPInteger(0), modulus: modulus).bigEndianBytes == [1])
    let sum = GMPInteger(bigEndian: [0xFF, 0xFF]) + GMPInteger(1)
    #expect(sum.bigEndianBytes == [1, 0, 0])
    #expect((GMPInteger(bigEndian: [1, 0, 0]) * GMPInteger(bigEndian: [1, 0])).bigEndianBytes == [1, 0, 0, 0])
    #expect((GMPInteger(1_000_010) % modulus).bigEndianBytes == [7])
    #expect((GMPInteger(1_000_003) % modulus).isZero)
  }
}
