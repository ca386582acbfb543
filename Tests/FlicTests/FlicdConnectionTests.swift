import FlicProtocol
import FlicdSimulator
import Foundation
import NIOCore
import NIOPosix
import PatchbayPluginKit
import PatchbayTestSupport
import Synchronization
import Testing

@testable import FlicPlugin

/// What a FlicdConnection reported, collected from its event loop.
final class ConnectionRecorder: Sendable {
  private struct Reports {
    var buttons: [(Int, ButtonEvent)] = []
    var connected: [(Int, Bool)] = []
    var battery: [(Int, Int)] = []
    var peer: [String] = []
    var logs: [String] = []
  }
  private let reports = Mutex(Reports())

  var events: FlicdConnection.Events {
    FlicdConnection.Events(
      button: { index, event in self.reports.withLock { $0.buttons.append((index, event)) } },
      connected: { index, linked in self.reports.withLock { $0.connected.append((index, linked)) } },
      battery: { index, percent in self.reports.withLock { $0.battery.append((index, percent)) } },
      peer: { text in self.reports.withLock { $0.peer.append(text) } },
      log: { _, message in self.reports.withLock { $0.logs.append(message) } })
  }

  func buttons(_ index: Int) -> [ButtonEvent] { reports.withLock { $0.buttons.filter { $0.0 == index }.map(\.1) } }
  func connected(_ index: Int) -> [Bool] { reports.withLock { $0.connected.filter { $0.0 == index }.map(\.1) } }
  func battery(_ index: Int) -> [Int] { reports.withLock { $0.battery.filter { $0.0 == index }.map(\.1) } }
  var logs: [String] { reports.withLock { $0.logs } }
  /// The flicd link as the PEER column shows it, without repeats.
  var peer: [String] { reports.withLock { $0.peer.reduce(into: []) { if $0.last != $1 { $0.append($1) } } } }
}

func flicConfig(port: Int, _ extra: String = "", buttons: [(String, BluetoothAddress)] = [("bedside", bedside)])
  throws -> FlicConfig
{
  let list = buttons.map { "{\"name\": \"\($0.0)\", \"address\": \"\($0.1)\"}" }.joined(separator: ",")
  return try FlicConfig(json: "{\"port\": \(port), \"buttons\": [\(list)]\(extra)}")
}

/// The plugin's flicd client against the simulator on real sockets.
@Suite(.serialized) struct FlicdConnectionTests {
  func simulator(port: Int = 0, buttons: [(BluetoothAddress, String)] = [(bedside, "bedside")]) throws -> FlicdServer {
    try .started(port: port, buttons: buttons)
  }

  @Test func singleDoubleHoldAndDownUpArriveAsButtonValues() throws {
    let server = try simulator()
    defer { server.shutdown() }
    let recorder = ConnectionRecorder()
    let connection = FlicdConnection(
      config: try flicConfig(port: server.port, ", \"expose_up_down\": true"), events: recorder.events)
    connection.start()
    defer { connection.stop() }
    try eventually("connected") { recorder.connected(0) == [false, true] }
    _ = try server.perform("wait-channel 80:e4:da:71:b6:8e 30")

    _ = try server.perform("press 80:e4:da:71:b6:8e single")
    try eventually("single click") { recorder.buttons(0).map(\.action) == [.down, .up, .click] }
    _ = try server.perform("press 80:e4:da:71:b6:8e double")
    try eventually("double click") {
      recorder.buttons(0).map(\.action).suffix(5) == [.down, .up, .down, .up, .doubleClick]
    }
    _ = try server.perform("press 80:e4:da:71:b6:8e hold")
    try eventually("hold") { recorder.buttons(0).map(\.action).suffix(3) == [.down, .hold, .up] }
    #expect(recorder.buttons(0).allSatisfy { !$0.queued && $0.ageMs == 0 })
  }

  @Test func clickHoldModeReportsClicksFromOp5AndNoUpDown() throws {
    let server = try simulator()
    defer { server.shutdown() }
    let recorder = ConnectionRecorder()
    let connection = FlicdConnection(
      config: try flicConfig(port: server.port, ", \"click_events\": \"click_hold\""), events: recorder.events)
    connection.start()
    defer { connection.stop() }
    _ = try server.perform("wait-channel 80:e4:da:71:b6:8e 30")
    _ = try server.perform("press 80:e4:da:71:b6:8e double")
    _ = try server.perform("press 80:e4:da:71:b6:8e hold")
    // Op 5 knows no double click: two clicks, then the hold.
    try eventually("two clicks and a hold") { recorder.buttons(0).map(\.action) == [.click, .click, .hold] }
  }

  @Test func dropsQueuedPressesOlderThanTheLimitAndDeliversFreshOnes() throws {
    let server = try simulator()
    defer { server.shutdown() }
    let recorder = ConnectionRecorder()
    let connection = FlicdConnection(config: try flicConfig(port: server.port), events: recorder.events)
    connection.start()
    defer { connection.stop() }
    _ = try server.perform("wait-channel 80:e4:da:71:b6:8e 30")
    _ = try server.perform("queued 80:e4:da:71:b6:8e single 30")
    _ = try server.perform("queued 80:e4:da:71:b6:8e double 2")
    try eventually("the fresh queued double click") { !recorder.buttons(0).isEmpty }
    #expect(recorder.buttons(0) == [ButtonEvent(action: .doubleClick, queued: true, ageMs: 2000)])
    #expect(recorder.logs.contains { $0.contains("dropped a queued click") && $0.contains("30 s old") })
  }

  @Test func reconnectsAfterFlicdRestartsAndRecreatesChannels() throws {
    var server: FlicdServer? = try simulator()
    let port = server!.port
    let recorder = ConnectionRecorder()
    let connection = FlicdConnection(config: try flicConfig(port: port), events: recorder.events)
    connection.start()
    defer { connection.stop() }
    try eventually("connected") { recorder.connected(0) == [false, true] }

    server?.shutdown()
    server = nil
    try eventually("disconnected") { recorder.connected(0) == [false, true, false] }

    let restarted = try simulator(port: port)
    defer { restarted.shutdown() }
    try eventually("connected again", within: 60) { recorder.connected(0) == [false, true, false, true] }
    // The PEER column of `patchbay status` followed flicd itself.
    try eventually("peer connected again") { recorder.peer == ["connected", "disconnected", "connected"] }
    _ = try restarted.perform("wait-channel 80:e4:da:71:b6:8e 30")
    _ = try restarted.perform("press 80:e4:da:71:b6:8e double")
    try eventually("press after reconnect") { recorder.buttons(0).map(\.action) == [.doubleClick] }
  }

  @Test func retriesWhileFlicdIsAbsent() throws {
    // Nothing listens there until flicd starts on it.
    let reservation = try PortReservation()
    let port = reservation.port
    let recorder = ConnectionRecorder()
    let connection = FlicdConnection(config: try flicConfig(port: port), events: recorder.events)
    connection.start()
    defer { connection.stop() }
    try eventually("a failed attempt is logged") { recorder.logs.contains { $0.contains("cannot connect to flicd") } }
    let server = try simulator(port: port)
    defer { server.shutdown() }
    try eventually("connected once flicd appears", within: 60) { recorder.connected(0).last == true }
  }

  @Test func severalButtonsOnOneConnectionReachTheirOwnIndexes() throws {
    let server = try simulator(buttons: [(bedside, "bedside"), (hallway, "hallway")])
    defer { server.shutdown() }
    let recorder = ConnectionRecorder()
    let connection = FlicdConnection(
      config: try flicConfig(port: server.port, buttons: [("bedside", bedside), ("hallway", hallway)]),
      events: recorder.events)
    connection.start()
    defer { connection.stop() }
    _ = try server.perform("wait-channel 80:e4:da:71:b6:8e 30")
    _ = try server.perform("wait-channel 08:09:0a:0b:0c:0d 30")
    _ = try server.perform("press 08:09:0a:0b:0c:0d hold")
    _ = try server.perform("press 80:e4:da:71:b6:8e double")
    try eventually("each button's own press") {
      recorder.buttons(0).map(\.action) == [.doubleClick] && recorder.buttons(1).map(\.action) == [.hold]
    }
    _ = try server.perform("battery 08:09:0a:0b:0c:0d 37")
    try eventually("battery of hallway") { recorder.battery(1) == [100, 37] }
    #expect(recorder.battery(0) == [100])
    _ = try server.perform("disconnect 08:09:0a:0b:0c:0d")
    try eventually("hallway out of range") { recorder.connected(1).last == false }
    #expect(recorder.connected(0).last == true)
  }

  @Test func dropsTheLinkOnAMalformedPacketAndReconnects() throws {
    let fake = try FakeFlicd { _ in [0x00, 0x00] }  // a zero-length frame
    defer { fake.close() }
    let recorder = ConnectionRecorder()
    let connection = FlicdConnection(config: try flicConfig(port: fake.port), events: recorder.events)
    connection.start()
    defer { connection.stop() }
    try eventually("reconnected after garbage", within: 60) { fake.connectionCount >= 3 }
    #expect(recorder.logs.contains { $0.contains("malformed packet") })
  }

  @Test func toleratesUnknownOpcodesAndTrailingBytes() throws {
    let fake = try FakeFlicd { _ in
      framed([0x63, 1, 2, 3]) + framed([0x01] + le32(1) + [0, 2] + [0xee, 0xee])
        + framed([0x07] + le32(1) + [4, 0] + le32(0) + [0xee])
    }
    defer { fake.close() }
    let recorder = ConnectionRecorder()
    let connection = FlicdConnection(config: try flicConfig(port: fake.port), events: recorder.events)
    connection.start()
    defer { connection.stop() }
    try eventually("ready and a double click") {
      recorder.connected(0) == [false, true] && recorder.buttons(0).map(\.action) == [.doubleClick]
    }
    #expect(fake.connectionCount == 1)
  }

  @Test func dropsALinkWhosePingsGoUnanswered() throws {
    let fake = try FakeFlicd { _ in [] }  // accepts, never answers
    defer { fake.close() }
    let recorder = ConnectionRecorder()
    let connection = FlicdConnection(
      config: try flicConfig(port: fake.port, ", \"ping_interval_s\": 0.2, \"ping_timeout_s\": 0.3"),
      events: recorder.events)
    connection.start()
    defer { connection.stop() }
    try eventually("reconnected after a silent peer", within: 60) { fake.connectionCount >= 2 }
    #expect(recorder.logs.contains { $0.contains("did not answer ping") })
  }
}

/// A TCP server that sends fixed bytes to each client as it connects, to feed the client
/// what a real flicd never would.
final class FakeFlicd: Sendable {
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let channel: any Channel
  private let connections = Tally()
  var port: Int { channel.localAddress!.port! }
  var connectionCount: Int { connections.count }

  /// How many connections came, counted on the server's loop and read from the test.
  private final class Tally: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func next() -> Int {
      value.withLock { count in
        count += 1
        return count
      }
    }
  }

  init(greeting: @escaping @Sendable (Int) -> [UInt8]) throws {
    let connections = self.connections
    channel = try ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { child in
        let bytes = greeting(connections.next())
        return child.eventLoop.makeCompletedFuture {
          try child.pipeline.syncOperations.addHandler(Greeter(bytes: bytes))
        }
      }
      .bind(host: "127.0.0.1", port: 0).wait()
  }

  func close() {
    try? channel.close().wait()
    try? group.syncShutdownGracefully()
  }
}

/// Writes its bytes when the connection becomes active, then ignores what the client sends.
final class Greeter: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  let bytes: [UInt8]
  init(bytes: [UInt8]) { self.bytes = bytes }

  func channelActive(context: ChannelHandlerContext) {
    if !bytes.isEmpty { context.writeAndFlush(NIOAny(ByteBuffer(bytes: bytes)), promise: nil) }
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
