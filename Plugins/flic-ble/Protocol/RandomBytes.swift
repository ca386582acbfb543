/// Where a session takes its random bytes (temporary ids, randoms, X25519 keys). The default is
/// the system's CSPRNG; tests pass a seeded source to replay a session byte for byte.
public struct RandomBytes: Sendable {
  let generate: @Sendable (Int) -> [UInt8]

  public init(_ generate: @escaping @Sendable (Int) -> [UInt8]) { self.generate = generate }

  public static let system = RandomBytes { count in
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
  }

  public func bytes(_ count: Int) -> [UInt8] { generate(count) }

  public func u32() -> UInt32 { bytes(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) } }
}
