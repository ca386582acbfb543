import HomebridgeProtocol
import PatchbayValues
import Testing

@Suite("Homebridge-websocket protocol coding")
struct ProtocolTests {
  @Test func clientMessagesEncodeToTheRealShapes() throws {
    let lamp = try AccessoryDefinition(
      name: "desk", service: "Lightbulb", enabling: ["brightness", "Hue"], manufacturer: "patchbay")
    let add = try #require(JSONValue.parse(ClientMessage.add(lamp).text))
    #expect(add["topic"] == .string("add"))
    #expect(add["payload"]?["name"] == .string("desk"))
    #expect(add["payload"]?["service"] == .string("Lightbulb"))
    #expect(add["payload"]?["Brightness"] == .string("default"))
    #expect(add["payload"]?["Hue"] == .string("default"))
    #expect(add["payload"]?["Saturation"] == nil)
    #expect(add["payload"]?["manufacturer"] == .string("patchbay"))

    let set = ClientMessage.setValue(name: "ws_morning", characteristic: "On", value: .bool(true)).text
    #expect(set == #"{"payload":{"characteristic":"On","name":"ws_morning","value":true},"topic":"setValue"}"#)
    let brightness = ClientMessage.setValue(name: "desk", characteristic: "Brightness", value: .number(40)).text
    #expect(brightness.contains(#""value":40}"#))
  }

  @Test func serverMessagesDecodeFromTheReferenceSamples() throws {
    #expect(
      try ServerMessage(
        text: #"{"topic":"response","payload":{"ack":true,"message":"accessory 'ws_morning' is added."}}"#)
        == .response(ack: true, message: "accessory 'ws_morning' is added."))
    #expect(
      try ServerMessage(text: #"{"topic":"set","payload":{"name":"ws_morning","characteristic":"On","value":false}}"#)
        == .set(name: "ws_morning", characteristic: "On", value: .bool(false)))
    #expect(
      try ServerMessage(text: #"{"topic":"get","payload":{"name":"ws_morning","characteristic":"On"}}"#)
        == .get(name: "ws_morning", characteristic: "On"))
    let accessories = try ServerMessage(
      text: #"{"topic":"accessories","payload":{"a":{"service":"Switch","characteristics":{"On":"blank"}}}}"#)
    guard case .accessories(let map) = accessories else {
      Issue.record("not accessories: \(accessories)")
      return
    }
    #expect(map["a"]?["characteristics"]?["On"] == .string("blank"))
  }

  @Test func malformedServerFramesAreProblemsNotCrashes() {
    for text in [
      "", "{", "[]", "42", #"{"payload":{}}"#, #"{"topic":"set"}"#, #"{"topic":"set","payload":{"name":1}}"#,
      #"{"topic":"response","payload":{"message":"x"}}"#, #"{"topic":"nope","payload":{}}"#, "\u{0}\u{ff}",
    ] {
      #expect(throws: ServerMessage.Problem.self) { try ServerMessage(text: text) }
    }
  }

  @Test func valuesAreConformedToTheCharacteristic() {
    #expect(ServiceCatalog.brightness.conformed(.number(150)) == .number(100))
    #expect(ServiceCatalog.brightness.conformed(.number(-3)) == .number(0))
    #expect(ServiceCatalog.brightness.conformed(.number(41.6)) == .number(42))
    #expect(ServiceCatalog.hue.conformed(.number(400.5)) == .number(360))
    #expect(ServiceCatalog.currentTemperature.conformed(.number(21.5)) == .number(21.5))
    #expect(ServiceCatalog.on.conformed(.number(1)) == .bool(true))
    #expect(ServiceCatalog.on.conformed(.string("true")) == nil)
    #expect(ServiceCatalog.brightness.conformed(.string("50")) == nil)
    #expect(ServiceCatalog.brightness.conformed(.number(.nan)) == nil)
    #expect(ServiceCatalog.brightness.conformed(.null) == nil)
  }

  @Test func definitionsRejectUnknownServicesAndCharacteristics() {
    #expect(throws: AccessoryDefinition.Problem.unknownService("Toaster")) {
      try AccessoryDefinition(name: "t", service: "Toaster")
    }
    #expect(throws: AccessoryDefinition.Problem.self) {
      try AccessoryDefinition(name: "s", service: "Switch", enabling: ["brightness"])
    }
    #expect(CharacteristicSpec.snakeName("CurrentTemperature") == "current_temperature")
  }
}

@Suite("Client session logic")
struct ClientSessionTests {
  let definitions = [
    try! AccessoryDefinition(name: "ws_morning", service: "Switch"),
    try! AccessoryDefinition(name: "desk", service: "Lightbulb", enabling: ["brightness"]),
    try! AccessoryDefinition(name: "remote", service: "StatelessProgrammableSwitch"),
  ]

  @Test func valuesSetWhileDisconnectedAreSentAfterTheAddsOnConnect() {
    var session = ClientSession(accessories: definitions)
    #expect(session.update(.init(accessory: "desk", characteristic: "Brightness"), to: .number(30)).send.isEmpty)
    _ = session.update(.init(accessory: "desk", characteristic: "Brightness"), to: .number(150))
    _ = session.update(.init(accessory: "ws_morning", characteristic: "On"), to: .bool(true))
    // An event (a button press) is not replayed later.
    _ = session.update(.init(accessory: "remote", characteristic: "ProgrammableSwitchEvent"), to: .number(0))
    let opening = session.opened().send
    #expect(opening.count == 4)
    #expect(opening.prefix(3).allSatisfy { if case .add = $0 { true } else { false } })
    #expect(opening.last == .get(name: "all"))
    // The server's values decide: it has none (it restarted), so ours go out.
    let sent = session.receive(text: Self.accessories(["desk": ["Brightness": .string("blank")]])).send
    #expect(sent.count == 2)
    #expect(sent.contains(.setValue(name: "desk", characteristic: "Brightness", value: .number(100))))
    #expect(sent.contains(.setValue(name: "ws_morning", characteristic: "On", value: .bool(true))))
  }

  /// The server's `accessories` answer with these characteristic values.
  static func accessories(_ values: [String: [String: JSONValue]]) -> String {
    ServerMessage.accessories(
      values.mapValues { .sortedObject(["service": .string("Switch"), "characteristics": .sortedObject($0)]) }
    ).text
  }

  /// Issue 28.1: HomeKit wrote while this client did not get the server's traffic (it was
  /// down, or another client held it). On connect the server's value is taken as HomeKit's
  /// write, not reverted by re-sending the older one; a value the hub set meanwhile still wins.
  @Test func aValueHomeKitWroteWhileAwayIsTakenNotReverted() {
    var session = ClientSession(accessories: definitions)
    _ = session.opened()
    _ = session.receive(text: Self.accessories([:]))
    let on = ClientSession.Key(accessory: "ws_morning", characteristic: "On")
    let brightness = ClientSession.Key(accessory: "desk", characteristic: "Brightness")
    _ = session.update(on, to: .bool(false))
    _ = session.update(brightness, to: .number(20))
    session.closed()
    _ = session.update(brightness, to: .number(30))
    _ = session.opened()
    let answer = session.receive(
      text: Self.accessories([
        "ws_morning": ["On": .bool(true)], "desk": ["Brightness": .number(70), "On": .bool(true)],
      ]))
    #expect(answer.homeKitWrites.map(\.key) == [on])
    #expect(answer.homeKitWrites.map(\.value) == [.bool(true)])
    #expect(answer.send == [.setValue(name: "desk", characteristic: "Brightness", value: .number(30))])
    #expect(session.value(on) == .bool(true))
    // A characteristic the hub never set is learned quietly: no write is replayed after a restart.
    #expect(session.value(.init(accessory: "desk", characteristic: "On")) == .bool(true))
  }

  @Test func homeKitReadsAreAnsweredAndWritesReported() {
    var session = ClientSession(accessories: definitions)
    _ = session.opened()
    _ = session.update(.init(accessory: "ws_morning", characteristic: "On"), to: .bool(true))
    let read = session.receive(text: #"{"topic":"get","payload":{"name":"ws_morning","characteristic":"On"}}"#)
    #expect(read.send == [.callback(name: "ws_morning", characteristic: "On", value: .bool(true))])
    let write = session.receive(
      text: #"{"topic":"set","payload":{"name":"desk","characteristic":"Brightness","value":55}}"#)
    #expect(write.homeKitWrites.map(\.value) == [.number(55)])
    #expect(session.value(.init(accessory: "desk", characteristic: "Brightness")) == .number(55))
    let garbage = session.receive(text: "{not json")
    #expect(garbage.send.isEmpty && garbage.homeKitWrites.isEmpty && garbage.logs.count == 1)
  }

  /// Homebridge is JavaScript: `1`, `1.0` and `true` are what it may send for the same thing.
  @Test func serverNumbersAreReadAsJavaScriptReadsThem() {
    var session = ClientSession(accessories: definitions)
    _ = session.opened()
    func write(_ accessory: String, _ characteristic: String, _ value: String) -> [JSONValue] {
      let text =
        #"{"topic":"set","payload":{"name":"\#(accessory)","characteristic":"\#(characteristic)","value":\#(value)}}"#
      return session.receive(text: text).homeKitWrites.map(\.value)
    }
    #expect(write("ws_morning", "On", "1") == [.bool(true)])
    #expect(write("ws_morning", "On", "0.0") == [.bool(false)])
    #expect(write("desk", "Brightness", "55.0") == [.number(55)])
    #expect(write("desk", "Brightness", "41.6") == [.number(42)])
    #expect(write("desk", "On", "true") == [.bool(true)])
    let temperature = ClientMessage.setValue(name: "hall", characteristic: "CurrentTemperature", value: .number(21.5))
    #expect(temperature.text.contains(#""value":21.5}"#))
  }
}
