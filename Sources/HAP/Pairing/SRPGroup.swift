import BigInt

/// RFC 5054's 3072-bit group (generator 5), the one HAP's pair-setup uses.
enum SRPGroup {
  static let N = BigUInt(
    """
    FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD\
    EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED\
    EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F\
    83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B\
    E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510\
    15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7\
    ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C\
    BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF
    """, radix: 16)!
  static let g = BigUInt(5)
  /// Bytes of N: every padded value is this long.
  static let length = 384
}

extension BigUInt {
  /// From big-endian bytes.
  init(bigEndian bytes: some Collection<UInt8>) {
    var words: [Word] = []
    var word: Word = 0
    var shift = 0
    for byte in bytes.reversed() {
      word |= Word(byte) << shift
      shift += 8
      if shift == Word.bitWidth {
        words.append(word)
        word = 0
        shift = 0
      }
    }
    if shift > 0 { words.append(word) }
    self.init(words: words)
  }

  /// Big-endian bytes without leading zeros (one zero byte for 0).
  var bigEndianBytes: [UInt8] {
    var out: [UInt8] = []
    for word in words.reversed() {
      for index in stride(from: Word.bitWidth / 8 - 1, through: 0, by: -1) {
        out.append(UInt8(truncatingIfNeeded: word >> (index * 8)))
      }
    }
    let trimmed = out.drop { $0 == 0 }
    return trimmed.isEmpty ? [0] : Array(trimmed)
  }

  /// Big-endian bytes left-padded with zeros to `length` (SRP's PAD()).
  func padded(to length: Int) -> [UInt8] {
    let bytes = bigEndianBytes
    return bytes.count >= length ? bytes : [UInt8](repeating: 0, count: length - bytes.count) + bytes
  }
}
