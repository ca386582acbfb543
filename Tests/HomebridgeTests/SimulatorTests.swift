import Foundation
import HomebridgeProtocol
import PatchbayTestSupport
import PatchbayValues
import Testing

@Suite("patchbay-sim homebridge answers like the real plugin", .serialized)
final class SimulatorTests {
  let directory: TemporaryDirectory
  let simulator: SimulatorUnderTest

  init() throws {
    directory = try TemporaryDirectory("homebridge-sim")
    simulator = try SimulatorUnderTest(
      .homebridge, directory: directory, name: "simulator",
      arguments: [
        "--automation", "ws_morning.On=true: scene Good Morning: ws_morning.On=false, ws_evening.On=false",
        "--cache", directory.url.appendingPathComponent("cache.json").path,
      ])
  }

  deinit { try? simulator.stop() }

  @Test func addAnswersAndErrors() throws {
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    client.send(#"{"topic":"add","payload":{"name":"ws_morning","service":"Switch"}}"#)
    try client.waitForFrame(containing: "accessory 'ws_morning', accessoryinformation is set.")
    #expect(
      client.received.first
        == #"{"payload":{"ack":true,"message":"accessory 'ws_morning' is added."},"topic":"response"}"#)
    client.send(#"{"topic":"add","payload":{"name":"ws_morning","service":"Switch"}}"#)
    try client.waitForFrame(containing: "name 'ws_morning' is already used.")
    client.send(#"{"topic":"add","payload":{"name":"toaster","service":"Toaster"}}"#)
    try client.waitForFrame(containing: "service 'Toaster' undefined.")
    client.send(#"{"topic":"dance","payload":{}}"#)
    try client.waitForFrame(containing: "topic 'dance' unknown.")
    client.send(#"{"topic":"remove","payload":{"name":"nobody"}}"#)
    try client.waitForFrame(containing: "accessory 'nobody' not found.")
  }

  @Test func setValueChecksAndStoresWithoutEcho() throws {
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    client.send(#"{"topic":"add","payload":{"name":"desk","service":"Lightbulb","Brightness":"default"}}"#)
    client.send(#"{"topic":"setValue","payload":{"name":"ghost","characteristic":"On","value":true}}"#)
    try client.waitForFrame(containing: "name 'ghost' undefined.")
    client.send(#"{"topic":"setValue","payload":{"name":"desk","characteristic":"Hue","value":3}}"#)
    try client.waitForFrame(containing: "characteristic 'Hue' undefined.")
    client.send(#"{"topic":"setValue","payload":{"name":"desk","characteristic":"On","value":null}}"#)
    try client.waitForFrame(containing: "name 'desk' value undefined.")
    client.send(#"{"topic":"setValue","payload":{"name":"desk","characteristic":"Brightness","value":-5}}"#)
    try client.waitForFrame(containing: "value '-5' outside range")
    client.send(#"{"topic":"setValue","payload":{"name":"desk","characteristic":"Brightness","value":140}}"#)
    try simulator.waitForLine(containing: "setValue desk.Brightness = 140 (above the maximum 100")
    client.send(#"{"topic":"setValue","payload":{"name":"desk","characteristic":"On","value":true}}"#)
    try simulator.waitForLine(containing: "setValue desk.On = true")
    client.send(#"{"topic":"get","payload":{"name":"desk"}}"#)
    try client.waitForFrame(containing: #""topic":"accessories""#)
    let answer = try #require(client.received.last.flatMap { JSONValue.parse($0) })
    #expect(answer["payload"]?["desk"]?["characteristics"]?["On"] == .bool(true))
    #expect(answer["payload"]?["desk"]?["characteristics"]?["Brightness"] == .integer(140))
    // No `set` came back for the client's own writes.
    #expect(!client.received.contains { $0.contains(#""topic":"set""#) })
  }

  @Test(arguments: [
    "{\"topic\":\"add\",\"payload\":",
    #"{"topic":"add"}"#,
    #"{"topic":"setValue","payload":{"name":"s","characteristic":"On","value":"true"}}"#,
  ])
  func framesThatWouldCrashHomebridgeAreRefused(frame: String) throws {
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    client.send(#"{"topic":"add","payload":{"name":"s","service":"Switch"}}"#)
    try client.waitForFrame(containing: "accessory 's'")
    client.send(frame)
    try simulator.waitForLine(containing: "would crash Homebridge")
    try eventually("the connection to be closed", within: 30) { !client.isOpen }
  }

  @Test func onlyTheNewestClientReceivesTraffic() throws {
    let first = try TestWebSocketClient(port: simulator.port)
    defer { first.close() }
    try simulator.waitForLine(containing: "client 1 connected")
    let second = try TestWebSocketClient(port: simulator.port)
    defer { second.close() }
    try simulator.waitForLine(containing: "client 1 no longer receives traffic")
    first.send(#"{"topic":"add","payload":{"name":"shared","service":"Switch"}}"#)
    try second.waitForFrame(containing: "accessory 'shared' is added.")
    #expect(first.received.isEmpty)
  }

  @Test func homeKitWritesReadsAndScenesReachTheClient() throws {
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    client.send(#"{"topic":"add","payload":{"name":"ws_morning","service":"Switch"}}"#)
    client.send(#"{"topic":"add","payload":{"name":"ws_evening","service":"Switch"}}"#)
    client.send(#"{"topic":"add","payload":{"name":"lamp","service":"Lightbulb","Brightness":"default"}}"#)
    try client.waitForFrame(containing: "accessory 'lamp' is added.")

    // A scene: the client turns ws_morning on, HomeKit's automation turns both off again.
    client.send(#"{"topic":"setValue","payload":{"name":"ws_morning","characteristic":"On","value":true}}"#)
    try simulator.waitForLine(containing: "scene 'Good Morning' ran")
    try client.waitForFrame(
      containing: #"{"payload":{"characteristic":"On","name":"ws_evening","value":false},"topic":"set"}"#)
    try client.waitForFrame(containing: #""name":"ws_morning","value":false}"#)

    #expect(try simulator.control("homekit-set ws_evening On true").contains("ok"))
    try client.waitForFrame(containing: #""name":"ws_evening","value":true}"#)

    // A slider drag: brightness writes within 300 ms arrive as the last one only.
    try simulator.control(
      "homekit-set lamp brightness 10", "homekit-set lamp brightness 20", "homekit-set lamp brightness 30")
    try client.waitForFrame(containing: #""name":"lamp","value":30}"#)
    #expect(!client.received.contains { $0.contains(#""name":"lamp","value":10}"#) })

    try simulator.control("homekit-get ws_evening On")
    try client.waitForFrame(containing: #"{"payload":{"characteristic":"On","name":"ws_evening"},"topic":"get"}"#)
    client.send(#"{"topic":"callback","payload":{"name":"ws_evening","characteristic":"On","value":true}}"#)
    try simulator.waitForLine(containing: "callback ws_evening.On = true (cached for HomeKit's next read)")

    let table = try simulator.control("table")
    #expect(table.contains("ws_evening (Switch): On=true"))
    #expect(table.contains("lamp (Lightbulb): On=blank Brightness=30"))
  }

  /// A message split into fragments is one message; an unmasked fragment is refused like
  /// any unmasked frame.
  @Test func fragmentedMessagesArriveWholeAndEveryFragmentMustBeMasked() throws {
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    client.sendFragmented(#"{"topic":"add","payload":{"name":"split","service":"Switch"}}"#, pieces: 3)
    try client.waitForFrame(containing: "accessory 'split' is added.")
    let careless = try TestWebSocketClient(port: simulator.port)
    defer { careless.close() }
    careless.sendFragmented(
      #"{"topic":"add","payload":{"name":"bare","service":"Switch"}}"#, pieces: 2, maskLast: false)
    try simulator.waitForLine(containing: "sent an unmasked frame")
    try eventually("the careless client's connection to close") { !careless.isOpen }
    #expect(simulator.count("add bare") == 0)
  }

  @Test func valuesAreBlankAfterARestartButAccessoriesStay() throws {
    let client = try TestWebSocketClient(port: simulator.port)
    client.send(#"{"topic":"add","payload":{"name":"kept","service":"Switch"}}"#)
    client.send(#"{"topic":"setValue","payload":{"name":"kept","characteristic":"On","value":true}}"#)
    try simulator.waitForLine(containing: "setValue kept.On = true")
    client.close()
    try simulator.stop()
    let restarted = try SimulatorUnderTest(
      .homebridge, directory: directory, name: "simulator2", port: simulator.port,
      arguments: ["--cache", directory.url.appendingPathComponent("cache.json").path])
    defer { try? restarted.stop() }
    #expect(try restarted.control("table").contains("kept (Switch): On=blank"))
  }

  /// Issue 45.10: `restart` is Homebridge restarting under a running client (a reboot): the
  /// socket closes, the cached accessories stay, every value is blank in `get`.
  @Test func theRestartCommandDropsClientsAndBlanksValues() throws {
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    client.send(#"{"topic":"add","payload":{"name":"kept","service":"Switch"}}"#)
    client.send(#"{"topic":"setValue","payload":{"name":"kept","characteristic":"On","value":true}}"#)
    try simulator.waitForLine(containing: "setValue kept.On = true")
    #expect(try simulator.control("restart") == "ok")
    try simulator.waitForLine(containing: "Homebridge restarted: 1 cached accessories, every value blank")
    try eventually("the client's socket to close") { !client.isOpen }
    #expect(try simulator.control("table").contains("kept (Switch): On=blank"))
    let again = try TestWebSocketClient(port: simulator.port)
    defer { again.close() }
    again.send(#"{"topic":"get","payload":{"name":"all"}}"#)
    try again.waitForFrame(containing: #""kept":{"characteristics":{"On":"blank"}"#)
    again.send(#"{"topic":"add","payload":{"name":"kept","service":"Switch"}}"#)
    try again.waitForFrame(containing: "name 'kept' is already used.")
  }
}

/// Behaviour of the real homebridge-websocket 0.2.2 found in the field, which the simulator
/// must reproduce so the plugin's tests catch a client that provokes it.
@Suite("patchbay-sim homebridge reproduces the real server's failures", .serialized)
final class SimulatorFailureTests {
  let directory: TemporaryDirectory
  let simulator: SimulatorUnderTest

  init() throws {
    directory = try TemporaryDirectory("homebridge-sim-failures")
    simulator = try SimulatorUnderTest(.homebridge, directory: directory, name: "simulator")
  }

  deinit { try? simulator.stop() }

  /// The real server keeps accessories in a plain JS object: `accessories["constructor"]`
  /// already exists, so `add` says "already used" and the next `setValue` throws a TypeError
  /// that kills Node. The old plugin sent exactly these frames for a config with such a name.
  @Test(arguments: ["constructor", "__proto__", "toString", "hasOwnProperty"])
  func aNameEveryJavaScriptObjectHasKillsHomebridge(name: String) throws {
    let bystander = try TestWebSocketClient(port: simulator.port)
    defer { bystander.close() }
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    try simulator.waitForLine(containing: "client 2 connected")
    client.send(#"{"topic":"add","payload":{"name":"\#(name)","service":"Switch"}}"#)
    try client.waitForFrame(containing: #""ack":false,"message":"name '\#(name)' is already used."}"#)
    #expect(simulator.process.isRunning)
    client.send(#"{"topic":"setValue","payload":{"name":"\#(name)","characteristic":"On","value":true}}"#)
    let status = try simulator.process.waitForExit(within: 30)
    #expect(status != 0)
    #expect(
      simulator.count("TypeError: Cannot read properties of undefined (reading 'getCharacteristic')") == 1,
      "\(simulator.process.output)")
    // The whole process died: every client lost its socket, and nobody listens any more.
    try eventually("both clients to be disconnected", within: 30) { !client.isOpen && !bystander.isOpen }
    #expect(throws: (any Error).self) { try TestWebSocketClient(port: self.simulator.port).close() }
  }

  @Test func callbackForSuchANameKillsHomebridgeToo() throws {
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    client.send(#"{"topic":"callback","payload":{"name":"valueOf","characteristic":"On","value":true}}"#)
    #expect(try simulator.process.waitForExit(within: 30) != 0)
  }

  /// HomeKit's `set` and `get` go to the most recently connected client only; when that
  /// client leaves, the server keeps writing into its closed socket.
  @Test func homeKitTrafficGoesToTheNewestClientAndIsLostAfterItLeaves() throws {
    let first = try TestWebSocketClient(port: simulator.port)
    defer { first.close() }
    first.send(#"{"topic":"add","payload":{"name":"shared","service":"Switch"}}"#)
    try first.waitForFrame(containing: "accessory 'shared' is added.")
    let second = try TestWebSocketClient(port: simulator.port)
    try simulator.waitForLine(containing: "client 1 no longer receives traffic")
    try simulator.control("homekit-set shared On true")
    try second.waitForFrame(containing: #""name":"shared","value":true}"#)
    second.close()
    try simulator.waitForLine(containing: "client 2 disconnected")
    #expect(try simulator.control("homekit-set shared On false").contains("ok"))
    try simulator.waitForLine(
      containing: "homekit set shared.On = false: sent to client 2, which has disconnected; lost")
    try simulator.control("homekit-get shared On")
    try simulator.waitForLine(containing: "homekit get shared.On: sent to client 2, which has disconnected; lost")
    // The first client is still connected and never heard of any of it.
    first.send(#"{"topic":"get","payload":{"name":"shared"}}"#)
    try simulator.waitForLine(containing: "get shared")
    #expect(first.isOpen)
    #expect(!first.received.contains { $0.contains(#""topic":"set""#) || $0.contains(#""topic":"get""#) })
    #expect(!first.received.contains { $0.contains(#""topic":"accessories""#) })
  }

  /// What a client meets after renaming an accessory or changing its service.
  @Test func changedServiceAndRemoveAnswerLikeTheRealServer() throws {
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    client.send(#"{"topic":"add","payload":{"name":"lamp","service":"Switch"}}"#)
    try client.waitForFrame(containing: "accessory 'lamp' is added.")
    client.send(#"{"topic":"add","payload":{"name":"lamp","service":"Lightbulb","Brightness":"default"}}"#)
    try client.waitForFrame(containing: "name 'lamp' is already used.")
    client.send(#"{"topic":"setValue","payload":{"name":"lamp","characteristic":"Brightness","value":50}}"#)
    try client.waitForFrame(containing: #""ack":false,"message":"name 'lamp' characteristic do not match."}"#)
    client.send(#"{"topic":"setValue","payload":{"name":"lamp","characteristic":"Wattage","value":50}}"#)
    try client.waitForFrame(containing: "characteristic 'Wattage' undefined.")
    client.send(#"{"topic":"remove","payload":{"name":"lamp"}}"#)
    try client.waitForFrame(containing: #""ack":true,"message":"accessory 'lamp' is removed."}"#)
    client.send(#"{"topic":"remove","payload":{"name":"lamp"}}"#)
    try client.waitForFrame(containing: #""ack":false,"message":"accessory 'lamp' not found."}"#)
    client.send(#"{"topic":"add","payload":{"name":"lamp","service":"Lightbulb","Brightness":"default"}}"#)
    try client.waitForFrame(containing: "accessory 'lamp', accessoryinformation is set.")
    client.send(#"{"topic":"setValue","payload":{"name":"lamp","characteristic":"Brightness","value":50}}"#)
    try simulator.waitForLine(containing: "setValue lamp.Brightness = 50")
  }

  /// 0.2.2 answers HomeKit's read from its cache at once and sends `get` at the same moment;
  /// the client's `callback` only refreshes the cache for the next read.
  @Test func homeKitReadsAreAnsweredFromTheCacheAtOnce() throws {
    let client = try TestWebSocketClient(port: simulator.port)
    defer { client.close() }
    client.send(#"{"topic":"add","payload":{"name":"fan","service":"Switch"}}"#)
    client.send(#"{"topic":"setValue","payload":{"name":"fan","characteristic":"On","value":true}}"#)
    try simulator.waitForLine(containing: "setValue fan.On = true")
    try simulator.control("homekit-get fan On")
    try simulator.waitForLine(containing: "homekit get fan.On: HomeKit shows the cached value true")
    try client.waitForFrame(containing: #"{"payload":{"characteristic":"On","name":"fan"},"topic":"get"}"#)
    client.send(#"{"topic":"callback","payload":{"name":"fan","characteristic":"On","value":false}}"#)
    try simulator.waitForLine(containing: "callback fan.On = false (cached for HomeKit's next read)")
    try simulator.control("homekit-get fan On")
    try simulator.waitForLine(containing: "homekit get fan.On: HomeKit shows the cached value false")
    #expect(simulator.count("timed out") == 0)
  }
}
