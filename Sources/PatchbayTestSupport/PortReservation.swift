#if canImport(Glibc)
  import Glibc
#endif

/// A TCP port on 127.0.0.1 held bound but never listening, for a test whose client must find
/// nothing there before its peer starts: connections are refused until a simulator started
/// with `--port` on it listens there. Both sockets set SO_REUSEADDR, which lets a listener
/// share a port with a socket that does not listen. Unlike a port found free and closed
/// again, no other process can take it meanwhile.
public final class PortReservation: Sendable {
  public let port: Int
  private let descriptor: Int32

  public init() throws {
    (descriptor, port) = try LoopbackSocket.bound(reuseAddress: true)
  }

  deinit { close(descriptor) }
}
