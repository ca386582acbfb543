#if canImport(Glibc)
  import Glibc
#endif

/// A TCP listener on 127.0.0.1 that never accepts: connections complete (the kernel's
/// backlog) and nothing ever answers. An accessory that hangs, a port a sandbox may or may not
/// let a plugin reach.
public final class SilentListener: Sendable {
  public let port: Int
  private let descriptor: Int32

  public init(backlog: Int32 = 16) throws {
    (descriptor, port) = try LoopbackSocket.bound(backlog: backlog)
  }

  deinit { close(descriptor) }
}
