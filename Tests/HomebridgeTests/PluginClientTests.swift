import Foundation
import HomebridgeConnection
import HomebridgeProtocol
import PatchbayTestSupport
import PatchbayValues
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The plugin's websocket client against the simulator process.
@Suite("homebridge-websocket client against the simulator", .serialized)
final class PluginClientTests {
  let directory: TemporaryDirectory
  /// Where the client connects: nothing listens there until a test starts the simulator on it.
  let reservation: PortReservation
  var port: Int { reservation.port }
  let writes = WriteLog()
  let definitions = [
    try! AccessoryDefinition(name: "ws_morning", service: "Switch"),
    try! AccessoryDefinition(name: "desk", service: "Lightbulb", enabling: ["brightness", "hue", "saturation"]),
    try! AccessoryDefinition(name: "hall", service: "TemperatureSensor"),
  ]

  init() throws {
    reservation = try PortReservation()
    directory = try TemporaryDirectory("homebridge-client")
  }

  var cachePath: String { directory.url.appendingPathComponent("cache.json").path }

  func makeClient() throws -> HomebridgeClient {
    let writes = self.writes
    return HomebridgeClient(
      endpoint: WebSocketEndpoint(host: "127.0.0.1", port: port), accessories: definitions,
      log: { level, message in writes.log("\(level): \(message)") },
      onHomeKitWrite: { write, _ in writes.record(write) })
  }

  @Test func addsAccessoriesAndSendsValuesKeptWhileDisconnected() throws {
    let client = try makeClient()
    defer { client.stop() }
    // Set before any server exists: kept, clamped, and sent once connected.
    client.update(.init(accessory: "desk", characteristic: "Brightness"), to: .number(150))
    client.update(.init(accessory: "hall", characteristic: "CurrentTemperature"), to: .number(21.5))
    client.start()
    let simulator = try SimulatorUnderTest(.homebridge, directory: directory, name: "simulator", port: port)
    defer { try? simulator.stop() }
    try simulator.waitForLine(containing: "add desk (Lightbulb): accessory 'desk' is added.")
    try simulator.waitForLine(containing: "add hall (TemperatureSensor): accessory 'hall' is added.")
    try simulator.waitForLine(containing: "setValue desk.Brightness = 100")
    try simulator.waitForLine(containing: "setValue hall.CurrentTemperature = 21.5")
    client.update(.init(accessory: "ws_morning", characteristic: "On"), to: .bool(true))
    client.update(.init(accessory: "desk", characteristic: "Hue"), to: .number(-20))
    try simulator.waitForLine(containing: "setValue ws_morning.On = true")
    try simulator.waitForLine(containing: "setValue desk.Hue = 0")
    #expect(simulator.count("would crash Homebridge") == 0)
    #expect(simulator.count("above the maximum") == 0)
  }

  @Test func readdsAndResendsValuesAfterASimulatorRestart() throws {
    let client = try makeClient()
    defer { client.stop() }
    client.start()
    var simulator = try SimulatorUnderTest(
      .homebridge, directory: directory, name: "simulator", port: port, arguments: ["--cache", cachePath])
    try simulator.waitForLine(containing: "add ws_morning (Switch): accessory 'ws_morning' is added.")
    client.update(.init(accessory: "ws_morning", characteristic: "On"), to: .bool(true))
    try simulator.waitForLine(containing: "setValue ws_morning.On = true")
    try simulator.stop()

    try eventually("the client to notice the lost connection", within: 30) { !client.isConnected }
    client.update(.init(accessory: "desk", characteristic: "On"), to: .bool(true))  // while disconnected
    simulator = try SimulatorUnderTest(
      .homebridge, directory: directory, name: "simulator2", port: port, arguments: ["--cache", cachePath])
    defer { try? simulator.stop() }
    // The cache kept the accessory: "already used" is success, and the values come again.
    try simulator.waitForLine(containing: "add ws_morning (Switch): name 'ws_morning' is already used.")
    try simulator.waitForLine(containing: "setValue ws_morning.On = true")
    try simulator.waitForLine(containing: "setValue desk.On = true")
    #expect(try simulator.control("table").contains("ws_morning (Switch): On=true"))
    #expect(client.isConnected)
  }

  @Test func answersHomeKitReadsAndReportsHomeKitWrites() throws {
    let client = try makeClient()
    defer { client.stop() }
    client.start()
    let simulator = try SimulatorUnderTest(.homebridge, directory: directory, name: "simulator", port: port)
    defer { try? simulator.stop() }
    client.update(.init(accessory: "ws_morning", characteristic: "On"), to: .bool(true))
    try simulator.waitForLine(containing: "setValue ws_morning.On = true")

    try simulator.control("homekit-get ws_morning On")
    try simulator.waitForLine(containing: "callback ws_morning.On = true (cached for HomeKit's next read)")

    try simulator.control("homekit-set desk Brightness 70")
    try simulator.control("homekit-set ws_morning On false")
    try eventually("both HomeKit writes to arrive; got \(writes.writes)", within: 30) { writes.writes.count == 2 }
    #expect(writes.writes.contains { $0.key.accessory == "desk" && $0.value == .number(70) })
    #expect(writes.writes.contains { $0.key.accessory == "ws_morning" && $0.value == .bool(false) })
    #expect(client.value(.init(accessory: "ws_morning", characteristic: "On")) == .bool(false))
  }
}

/// Collects what the client reports, from its event loop thread.
final class WriteLog: Sendable {
  private let entries = Mutex<[ClientSession.HomeKitWrite]>([])
  private let logLines = Mutex<[String]>([])

  func record(_ write: ClientSession.HomeKitWrite) { entries.withLock { $0.append(write) } }
  func log(_ line: String) { logLines.withLock { $0.append(line) } }
  var writes: [ClientSession.HomeKitWrite] { entries.withLock { $0 } }
  var lines: [String] { logLines.withLock { $0 } }
}

/// A TCP server that answers every connection with junk and hangs up: not a websocket.
final class JunkServer: Sendable {
  let fd: Int32
  private let accepted = Mutex(0)

  init(port: Int) throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    self.fd = fd
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 8) == 0 else { throw JunkError() }
    Thread {
      while true {
        let client = accept(self.fd, nil, nil)
        guard client >= 0 else { return }
        self.accepted.withLock { $0 += 1 }
        _ = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n\u{0}\u{1}{]x".withCString { write(client, $0, strlen($0)) }
        close(client)
      }
    }.start()
  }

  var connections: Int { accepted.withLock { $0 } }

  func stop() {
    shutdown(fd, Int32(SHUT_RDWR))
    close(fd)
  }

  struct JunkError: Error {}
}

extension PluginClientTests {
  @Test func survivesAServerThatIsNotHomebridgeAndConnectsOnceItIs() throws {
    let junk = try JunkServer(port: port)
    let client = try makeClient()
    defer { client.stop() }
    client.start()
    client.update(.init(accessory: "ws_morning", characteristic: "On"), to: .bool(true))
    try eventually("the client to retry the junk server", within: 60) { junk.connections >= 3 }
    #expect(!client.isConnected)
    junk.stop()
    let simulator = try SimulatorUnderTest(.homebridge, directory: directory, name: "simulator", port: port)
    defer { try? simulator.stop() }
    try simulator.waitForLine(containing: "setValue ws_morning.On = true")
    #expect(client.isConnected)
  }
}
