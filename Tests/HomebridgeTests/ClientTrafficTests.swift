import Foundation
import HomebridgeConnection
import HomebridgeProtocol
import PatchbayTestSupport
import Synchronization
import Testing

/// The client's logging while the server is away and its answer to a second client that
/// takes the server's traffic, against real sockets and the simulator process.
@Suite("homebridge-websocket client: outages and a second client", .serialized)
final class ClientTrafficTests {
  let directory: TemporaryDirectory
  /// Where the client connects: nothing listens there until a test starts the simulator on it.
  let reservation: PortReservation
  var port: Int { reservation.port }
  let writes = WriteLog()
  let states = ConnectionLog()

  init() throws {
    reservation = try PortReservation()
    directory = try TemporaryDirectory("homebridge-traffic")
  }

  func makeClient(_ timing: HomebridgeClient.Timing) throws -> HomebridgeClient {
    let writes = self.writes
    let states = self.states
    return HomebridgeClient(
      endpoint: WebSocketEndpoint(host: "127.0.0.1", port: port),
      accessories: [try AccessoryDefinition(name: "ws_morning", service: "Switch")], timing: timing,
      log: { level, message in writes.log("\(level): \(message)") },
      onHomeKitWrite: { write, _ in writes.record(write) },
      onConnectionChange: { open in states.record(open) })
  }

  @Test func aClosedPortCostsAFewLinesNotOnePerAttempt() throws {
    var timing = HomebridgeClient.Timing()
    timing.backoff = .init(initial: 0.02, maximum: 0.05)
    timing.outageSummaryInterval = .seconds(1)
    let client = try makeClient(timing)
    defer { client.stop() }
    client.start()
    // Nothing listens on the port: at about 25 attempts a second, two summaries take 2-3 s.
    try eventually("two summaries; log:\n\(writes.lines.joined(separator: "\n"))", within: 60) {
      writes.lines.filter { $0.contains("still unreachable") }.count >= 2
    }
    let lines = writes.lines
    let failures = lines.filter { $0.contains("retrying in") && !$0.contains("still unreachable") }
    #expect(failures.count == 3, "\(lines)")
    #expect(
      failures.first?.hasPrefix("warning: cannot connect to ws://127.0.0.1:\(port)/: Connection refused; retrying in")
        == true, "\(lines)")
    #expect(!lines.contains { $0.contains("upgrade") || $0.contains("Inappropriate") }, "\(lines)")
    #expect(lines.count <= 3 + 4, "\(lines)")
    let simulator = try SimulatorUnderTest(.homebridge, directory: directory, name: "simulator", port: port)
    defer { try? simulator.stop() }
    try eventually("the reconnect line; log:\n\(writes.lines.joined(separator: "\n"))", within: 60) {
      writes.lines.contains { $0.contains("reconnected to Homebridge at ws://127.0.0.1:\(port)/ after") }
    }
    #expect(states.values == [.disconnected, .connected])
  }

  @Test func aSecondClientIsNoticedAndTheTrafficTakenBackAfterItLeft() throws {
    var timing = HomebridgeClient.Timing()
    // Shorter than the defaults, but long enough that a machine with both cores taken (the
    // stress run) answers a probe in time: at 1 s a slow answer read as a hang, not a takeover.
    timing.trafficProbeInterval = .seconds(5)
    timing.reclaimDelay = .seconds(2)
    let simulator = try SimulatorUnderTest(.homebridge, directory: directory, name: "simulator", port: port)
    defer { try? simulator.stop() }
    let client = try makeClient(timing)
    defer { client.stop() }
    client.start()
    try simulator.waitForLine(containing: "add ws_morning (Switch): accessory 'ws_morning' is added.")
    try eventually("the first HomeKit write", within: 120, pollEvery: 0.5) {
      try simulator.control("homekit-set ws_morning On true")
      return !writes.writes.isEmpty
    }
    let before = writes.writes.count

    // Another client comes and goes: the server's traffic now goes into its closed socket.
    let other = try TestWebSocketClient(port: port)
    try simulator.waitForLine(containing: "client 2 connected")
    other.close()
    try simulator.waitForLine(containing: "client 2 disconnected")
    try simulator.control("homekit-set ws_morning On false")
    try simulator.waitForLine(containing: "homekit set ws_morning.On = false: sent to client 2, which has disconnected")
    try eventually("the client to notice; log:\n\(writes.lines.joined(separator: "\n"))", within: 120) {
      writes.lines.contains { $0.hasPrefix("warning: another client has connected to Homebridge") }
    }
    try simulator.waitForLine(containing: "client 3 connected", within: 120)
    // The write that went into client 2's closed socket is read back from the server when the
    // client takes the traffic back: reported as HomeKit's write, not reverted by a re-send.
    // Waited for before any new write: a `true` set first would replace the value read back (so
    // it went in a clean-clone CI run on a loaded machine).
    try eventually(
      "the write made while client 2 had the traffic to be read back; writes: \(writes.writes)", within: 120
    ) {
      writes.writes.contains { $0.value == .bool(false) }
    }
    try eventually("a HomeKit write to reach the client again", within: 120, pollEvery: 0.5) {
      try simulator.control("homekit-set ws_morning On true")
      return writes.writes.count > before + 1
    }
    #expect(simulator.count("setValue ws_morning.On = true") == 0, "\(simulator.output)")
    let states = states.values
    #expect(states.first == .disconnected && states.last == .connected, "\(states)")
    #expect(states.contains(.takenOver), "\(states)")
    #expect(zip(states, states.dropFirst()).allSatisfy { $0 != $1 }, "\(states)")
  }

  /// A hung server (SIGSTOP) answers neither the traffic probe nor a ping: that is a hang, not
  /// another client, and it is said so within two probe intervals.
  @Test func aHungServerIsNotTakenForAnotherClient() throws {
    var timing = HomebridgeClient.Timing()
    timing.trafficProbeInterval = .seconds(1)
    timing.pingInterval = .seconds(1)
    timing.reclaimDelay = .seconds(600)
    let simulator = try SimulatorUnderTest(.homebridge, directory: directory, name: "simulator", port: port)
    defer { try? simulator.stop() }
    let client = try makeClient(timing)
    defer { client.stop() }
    client.start()
    try simulator.waitForLine(containing: "add ws_morning (Switch): accessory 'ws_morning' is added.")
    try eventually("connected", within: 30) { states.values.last == .connected }
    simulator.process.signal(SIGSTOP)
    defer { simulator.process.signal(SIGCONT) }
    try eventually("the hang to be noticed; log:\n\(writes.lines.joined(separator: "\n"))", within: 60) {
      writes.lines.contains { $0.contains("the server is hung") }
    }
    #expect(!writes.lines.contains { $0.contains("another client") }, "\(writes.lines)")
    #expect(!states.values.contains(.takenOver), "\(states.values)")
  }
}

/// The connection states the client reported, in order.
final class ConnectionLog: Sendable {
  private let states = Mutex<[HomebridgeClient.PeerState]>([])

  func record(_ state: HomebridgeClient.PeerState) { states.withLock { $0.append(state) } }

  var values: [HomebridgeClient.PeerState] { states.withLock { $0 } }
}
