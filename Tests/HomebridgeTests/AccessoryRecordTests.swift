import HomebridgeProtocol
import PatchbayValues
import Testing

@Suite("Accessory names and the record of what the client added")
struct AccessoryRecordTests {
  @Test(arguments: [
    "constructor", "__proto__", "toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf",
    "propertyIsEnumerable", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
  ])
  func namesEveryJavaScriptObjectHasAreRefused(name: String) {
    #expect(throws: AccessoryDefinition.Problem.nameCrashesHomebridge(name)) {
      try AccessoryDefinition(name: name, service: "Switch")
    }
    #expect(
      "\(AccessoryDefinition.Problem.nameCrashesHomebridge(name))"
        == "'\(name)' is a property every JavaScript object has; homebridge-websocket 0.2.2 crashes on it; "
        + "choose another name")
    // Not confused with ordinary names that merely contain them.
    #expect(throws: Never.self) { try AccessoryDefinition(name: name + "_lamp", service: "Switch") }
  }

  @Test func theRecordRoundTripsAndNeverHoldsACrashingName() {
    let record = AddedAccessories(["desk": "Lightbulb", "ws_morning": "Switch"])
    #expect(AddedAccessories(jsonText: record.jsonText) == record)
    #expect(
      AddedAccessories(jsonText: #"{"accessories":{"constructor":"Switch","a":"Switch"}}"#)?.services == ["a": "Switch"]
    )
    #expect(AddedAccessories(jsonText: "{") == nil)
    #expect(AddedAccessories(jsonText: #"{"accessories":{"a":1}}"#) == nil)
  }

  func response(_ ack: Bool, _ message: String) -> String {
    ServerMessage.response(ack: ack, message: message).text
  }

  @Test func onConnectRemovesWhatTheConfigDroppedAndReplacesAChangedService() throws {
    let definitions = [
      try AccessoryDefinition(name: "new_name", service: "Switch"),
      try AccessoryDefinition(name: "desk", service: "Lightbulb", enabling: ["brightness"]),
      try AccessoryDefinition(name: "kept", service: "Switch"),
    ]
    var session = ClientSession(
      accessories: definitions, added: AddedAccessories(["old_name": "Switch", "desk": "Switch", "kept": "Switch"]))
    _ = session.update(.init(accessory: "desk", characteristic: "Brightness"), to: .number(40))
    let opened = session.opened()
    let sent = opened.send
    // What it asks for is kept (and saved) before the answers: a hub stopped in between (CI
    // once stopped it there) still replaces a changed service at its next start.
    #expect(opened.addedChanged)
    #expect(session.added.services["new_name"] == "Switch" && session.added.services["desk"] == "Lightbulb")
    #expect(
      sent == [
        .remove(name: "desk"), .remove(name: "old_name"), .add(definitions[0]), .add(definitions[1]),
        .add(definitions[2]), .get(name: "all"),
      ])
    // The server's answers, in order, keep the record.
    var changed = false
    for answer in [
      response(true, "accessory 'desk' is removed."), response(false, "accessory 'old_name' not found."),
      response(true, "accessory 'new_name' is added."), response(true, "accessory 'desk' is added."),
      response(false, "name 'kept' is already used."),
    ] {
      changed = session.receive(text: answer).addedChanged || changed
    }
    #expect(changed)
    #expect(session.added.services == ["new_name": "Switch", "desk": "Lightbulb", "kept": "Switch"])
    // Next connect: nothing to remove.
    session.closed()
    #expect(!session.opened().send.contains { if case .remove = $0 { true } else { false } })
  }

  @Test func anAccessoryTheServerHoldsWithAnotherServiceIsReplacedOnce() throws {
    let desk = try AccessoryDefinition(name: "desk", service: "Lightbulb", enabling: ["brightness"])
    var session = ClientSession(accessories: [desk])
    _ = session.update(.init(accessory: "desk", characteristic: "Brightness"), to: .number(40))
    _ = session.opened()
    _ = session.receive(text: response(false, "name 'desk' is already used."))
    let mismatch = response(false, "name 'desk' characteristic do not match.")
    let first = session.receive(text: mismatch)
    #expect(
      first.send == [
        .remove(name: "desk"), .add(desk), .setValue(name: "desk", characteristic: "Brightness", value: .number(40)),
      ])
    #expect(first.logs.contains { $0.level == .warning })
    #expect(session.receive(text: mismatch).send.isEmpty)
    _ = session.receive(text: response(true, "accessory 'desk' is removed."))
    _ = session.receive(text: response(true, "accessory 'desk' is added."))
    #expect(session.added.services == ["desk": "Lightbulb"])
  }

  @Test func theTrafficProbeNoticesAnUnansweredGet() throws {
    var session = ClientSession(accessories: [try AccessoryDefinition(name: "ws_morning", service: "Switch")])
    _ = session.opened()
    #expect(session.probeTraffic()?.send == [.get(name: "ws_morning")])
    _ = session.receive(
      text: ServerMessage.accessories(["ws_morning": .sortedObject(["service": .string("Switch")])]).text)
    #expect(session.probeTraffic()?.send == [.get(name: "ws_morning")])
    #expect(session.probeTraffic() == nil)
    // An accessory the server does not know is answered too, only to the newest client.
    _ = session.receive(text: response(false, "name 'ws_morning' undefined."))
    #expect(session.probeTraffic() != nil)
    // A new connection starts afresh.
    session.closed()
    _ = session.opened()
    #expect(session.probeTraffic() != nil)
  }
}
