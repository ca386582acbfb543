/// Chaskey-LTS (16 rounds), as Flic 2 uses it: a 128-bit key expanded to the key and its two
/// doublings in GF(2^128); packets carry a 5-byte tag over a per-direction 64-bit counter.
public struct ChaskeyKey: Sendable, Equatable {
  /// k, k1 = 2k, k2 = 4k as little-endian 32-bit words.
  let words: [UInt32]

  public init(_ key: [UInt8]) {
    precondition(key.count == 16, "a Chaskey key is 16 bytes")
    var k = [UInt32](repeating: 0, count: 4)
    for index in 0..<16 { k[index / 4] |= UInt32(key[index]) << (8 * UInt32(index % 4)) }
    let k1 = Self.times2(k)
    words = k + k1 + Self.times2(k1)
  }

  private static func times2(_ v: [UInt32]) -> [UInt32] {
    let carry: UInt32 = (v[3] >> 31) * 0x87
    return [(v[0] << 1) ^ carry, (v[1] << 1) | (v[0] >> 31), (v[2] << 1) | (v[1] >> 31), (v[3] << 1) | (v[2] >> 31)]
  }

  /// The 5-byte packet tag. Counter and direction enter the initial state (xored into the key
  /// words 0, 1 and 2) and are permuted once before the first message block; `message` must not be empty.
  public func tag(direction: PacketDirection, counter: UInt64, message: [UInt8]) -> [UInt8] {
    precondition(!message.isEmpty, "Flic never MACs an empty packet")
    var v: [UInt32] = [
      words[0] ^ UInt32(truncatingIfNeeded: counter), words[1] ^ UInt32(truncatingIfNeeded: counter >> 32),
      words[2] ^ direction.rawValue, words[3],
    ]
    Self.permute(&v)
    var offset = 0
    while true {
      let remaining = message.count - offset
      var block = [UInt8](repeating: 0, count: 16)
      let finalKey: Int
      if remaining > 16 {
        block = Array(message[offset..<offset + 16])
        finalKey = 0
      } else if remaining == 16 {
        block = Array(message[offset..<offset + 16])
        finalKey = 4
      } else {
        block.replaceSubrange(0..<remaining, with: message[offset...])
        block[remaining] = 0x01
        finalKey = 8
      }
      offset += 16
      for index in 0..<4 { v[index] ^= Self.word(block, index) }
      if finalKey != 0 { for index in 0..<4 { v[index] ^= words[finalKey + index] } }
      Self.permute(&v)
      if finalKey != 0 {
        let v0 = v[0] ^ words[finalKey]
        let v1 = v[1] ^ words[finalKey + 1]
        return [
          UInt8(truncatingIfNeeded: v0), UInt8(truncatingIfNeeded: v0 >> 8), UInt8(truncatingIfNeeded: v0 >> 16),
          UInt8(truncatingIfNeeded: v0 >> 24), UInt8(truncatingIfNeeded: v1),
        ]
      }
    }
  }

  /// Chaskey over exactly one 16-byte block with the full 16-byte output: quick verify's session key.
  public func block(_ data: [UInt8]) -> [UInt8] {
    precondition(data.count == 16, "one block is 16 bytes")
    var v = (0..<4).map { words[$0] ^ words[4 + $0] ^ Self.word(data, $0) }
    Self.permute(&v)
    var out: [UInt8] = []
    for index in 0..<4 {
      let w = v[index] ^ words[4 + index]
      for shift in 0..<4 { out.append(UInt8(truncatingIfNeeded: w >> (8 * UInt32(shift)))) }
    }
    return out
  }

  private static func word(_ bytes: [UInt8], _ index: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[4 * index + $1]) << (8 * UInt32($1)) }
  }

  private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }

  private static func permute(_ v: inout [UInt32]) {
    var (v0, v1, v2, v3) = (v[0], v[1], rotl(v[2], 16), v[3])
    for _ in 0..<16 {
      v0 &+= v1
      v1 = v0 ^ rotl(v1, 5)
      v2 = v3 &+ rotl(v2, 16)
      v3 = v2 ^ rotl(v3, 8)
      v2 &+= v1
      v0 = v3 &+ rotl(v0, 16)
      v1 = v2 ^ rotl(v1, 7)
      v3 = v0 ^ rotl(v3, 13)
    }
    v = [v0, v1, rotl(v2, 16), v3]
  }
}

/// Which way a packet goes: the MAC differs per direction so a tag cannot be reflected back.
public enum PacketDirection: UInt32, Sendable {
  case fromButton = 0
  case toButton = 1
}
