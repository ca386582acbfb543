import CGMP

/// A non-negative big integer in a libgmp `mpz_t`: only what SRP-6a needs. libgmp instead of a
/// Swift big-integer library because a debug build (the tests') took 7–10 s per pair-setup.
/// Immutable: every operation returns a new value. Not Sendable: each pair-setup owns its own.
final class GMPInteger {
  // Allocated, not a stored struct: libgmp keeps this address across calls.
  private let value = UnsafeMutablePointer<__mpz_struct>.allocate(capacity: 1)

  private init(_ build: (UnsafeMutablePointer<__mpz_struct>) -> Void) {
    __gmpz_init(value)
    build(value)
  }

  deinit {
    __gmpz_clear(value)
    value.deallocate()
  }

  convenience init(_ small: UInt) {
    self.init { __gmpz_set_ui($0, small) }
  }

  /// From hexadecimal digits; nil when they are not.
  convenience init?(hex: String) {
    var valid = true
    self.init { valid = __gmpz_set_str($0, hex, 16) == 0 }
    guard valid else { return nil }
  }

  /// From big-endian bytes (leading zeros allowed).
  convenience init(bigEndian bytes: [UInt8]) {
    self.init { result in
      bytes.withUnsafeBytes { __gmpz_import(result, $0.count, 1, 1, 1, 0, $0.baseAddress) }
    }
  }

  var isZero: Bool { value.pointee._mp_size == 0 }

  /// Big-endian bytes without leading zeros (one zero byte for 0).
  var bigEndianBytes: [UInt8] {
    guard !isZero else { return [0] }
    var bytes = [UInt8](repeating: 0, count: (__gmpz_sizeinbase(value, 2) + 7) / 8)
    var written = 0
    bytes.withUnsafeMutableBytes { _ = __gmpz_export($0.baseAddress, &written, 1, 1, 1, 0, value) }
    precondition(written == bytes.count, "mpz_export wrote \(written) bytes, not \(bytes.count)")
    return bytes
  }

  /// Big-endian bytes left-padded with zeros to `length` (SRP's PAD()).
  func padded(to length: Int) -> [UInt8] {
    let bytes = bigEndianBytes
    return bytes.count >= length ? bytes : [UInt8](repeating: 0, count: length - bytes.count) + bytes
  }

  /// self^exponent mod modulus (odd), in time that does not depend on the exponent's bits
  /// (mpz_powm_sec): SRP's exponents x and b are secrets.
  func power(_ exponent: GMPInteger, modulus: GMPInteger) -> GMPInteger {
    // mpz_powm_sec's requirement: its result is not defined for an even modulus.
    precondition(!modulus.isZero && modulus.value.pointee._mp_d[0] & 1 == 1, "power needs an odd modulus")
    return GMPInteger { result in
      if exponent.isZero {
        __gmpz_set_ui(result, 1)  // mpz_powm_sec requires exponent > 0
        __gmpz_mod(result, result, modulus.value)
      } else {
        __gmpz_powm_sec(result, value, exponent.value, modulus.value)
      }
    }
  }

  static func + (a: GMPInteger, b: GMPInteger) -> GMPInteger {
    GMPInteger { __gmpz_add($0, a.value, b.value) }
  }

  /// May be negative (the controller's B − k·v): only ever taken `%` a modulus afterwards.
  static func - (a: GMPInteger, b: GMPInteger) -> GMPInteger {
    GMPInteger { __gmpz_sub($0, a.value, b.value) }
  }

  static func * (a: GMPInteger, b: GMPInteger) -> GMPInteger {
    GMPInteger { __gmpz_mul($0, a.value, b.value) }
  }

  /// The non-negative remainder.
  static func % (a: GMPInteger, modulus: GMPInteger) -> GMPInteger {
    GMPInteger { __gmpz_mod($0, a.value, modulus.value) }
  }
}
