import FlicProtocol
import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A blocking test client that speaks the flicd protocol on a real TCP socket, to check the
/// simulator packet by packet.
final class RawFlicdClient {
  let fd: Int32
  private var framer = PacketFramer()
  /// Every event received so far, in order.
  private(set) var received: [EventPacket] = []

  init(port: Int) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      close(fd)
      throw ConnectFailed(port: port, errno: errno)
    }
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { close(fd) }

  func send(_ command: CommandPacket) { sendRaw(command.encoded()) }

  func sendRaw(_ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }

  /// Reads whatever arrived; returns false when the peer closed the socket.
  @discardableResult
  func poll() throws -> Bool {
    var chunk = [UInt8](repeating: 0, count: 4096)
    let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    if count == 0 { return false }
    if count > 0 {
      framer.append(chunk.prefix(count))
      while let packet = try framer.nextPacket() { received.append(try EventPacket.decode(packet)) }
    }
    return true
  }

  /// Waits for an event matching `predicate` after `index` and returns it with its position.
  @discardableResult
  func waitFor(
    _ what: String, after index: Int = 0, within seconds: Double = 30, _ predicate: (EventPacket) -> Bool
  ) throws -> (event: EventPacket, index: Int) {
    var found: (EventPacket, Int)?
    try eventually("event \(what); received: \(received)", within: seconds, pollEvery: 0) {
      try poll()
      if let position = received.indices.first(where: { $0 >= index && predicate(received[$0]) }) {
        found = (received[position], position)
      }
      return found != nil
    }
    return found!
  }

  /// Waits until the peer closes the socket.
  func waitForClose(within seconds: Double = 30) throws {
    try eventually("the peer to close the connection", within: seconds, pollEvery: 0) { try !poll() }
  }
}

struct ConnectFailed: Error {
  var port: Int
  var errno: Int32
}
