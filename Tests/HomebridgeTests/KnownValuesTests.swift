import HomebridgeProtocol
import PatchbayValues
import Testing

/// Issue 45, items 9 and 10: what the plugin knew about the server's values survives its
/// restarts and the hub's, so HomeKit's writes made while it was away are taken, not reverted,
/// and a Homebridge that restarted with blank values is refilled.
@Suite("Values known across restarts")
struct KnownValuesTests {
  let lamp = try! AccessoryDefinition(name: "lamp", service: "Switch")
  let on = ClientSession.Key(accessory: "lamp", characteristic: "On")

  static func accessories(_ values: [String: [String: JSONValue]]) -> String {
    ClientSessionTests.accessories(values)
  }

  /// A plugin that ran, turned the lamp on in Homebridge and then went away: what it left.
  func knownAfterTheLampWentOn() -> KnownValues {
    var session = ClientSession(accessories: [lamp])
    _ = session.opened()
    _ = session.receive(text: Self.accessories(["lamp": ["On": .string("blank")]]))
    #expect(
      session.update(on, to: .bool(true)).send == [.setValue(name: "lamp", characteristic: "On", value: .bool(true))])
    return session.known
  }

  func resentLogs(_ output: ClientSession.Output) -> [String] {
    output.logs.map(\.message).filter { $0.contains("re-sent") || $0.contains("values the hub set") }
  }

  @Test func theRecordRoundTrips() {
    let known = KnownValues(
      latest: [on: .bool(true), .init(accessory: "desk.lamp", characteristic: "Hue"): .number(40.5)],
      server: [on: .bool(false)])
    #expect(KnownValues(jsonText: known.jsonText) == known)
    #expect(KnownValues(jsonText: "{") == nil)
    #expect(KnownValues(jsonText: #"{"latest":{"lamp":1},"server":{}}"#) == nil)
  }

  /// Item 9: the plugin crashed (or was restarted); HomeKit turned the lamp off meanwhile; the
  /// hub gives the restarted plugin its last value (on) before it connects. That is no change
  /// by the hub: HomeKit's off stands, is published, and nothing is sent back.
  @Test func aHomeKitWriteMadeWhileThePluginWasDownIsTakenNotReversed() {
    var session = ClientSession(accessories: [lamp], known: knownAfterTheLampWentOn())
    _ = session.update(on, to: .bool(true))  // the hub's retained value, first thing
    _ = session.opened()
    let answer = session.receive(text: Self.accessories(["lamp": ["On": .bool(false)]]))
    #expect(answer.send.isEmpty)
    #expect(answer.homeKitWrites.map(\.key) == [on])
    #expect(answer.homeKitWrites.map(\.value) == [.bool(false)])
    #expect(session.value(on) == .bool(false))
    #expect(resentLogs(answer).isEmpty, "\(answer.logs)")
  }

  /// Item 9 on a loaded machine: the hub's retained value reaches the restarted plugin only
  /// after it connected, or after the server's list was read. Neither time is it a change by
  /// the hub: HomeKit's off stands. A later set by the hub, even to the same value, is sent.
  @Test func theHubsReplayArrivingLateDoesNotReverseHomeKitsWrite() {
    for replayWhileReconciling in [true, false] {
      var session = ClientSession(accessories: [lamp], known: knownAfterTheLampWentOn())
      _ = session.opened()
      if replayWhileReconciling { #expect(session.update(on, to: .bool(true)).send.isEmpty) }
      let answer = session.receive(text: Self.accessories(["lamp": ["On": .bool(false)]]))
      #expect(answer.send.isEmpty)
      #expect(answer.homeKitWrites.map(\.value) == [.bool(false)])
      if !replayWhileReconciling { #expect(session.update(on, to: .bool(true)).send.isEmpty) }
      #expect(session.value(on) == .bool(false))
      #expect(
        session.update(on, to: .bool(true)).send == [.setValue(name: "lamp", characteristic: "On", value: .bool(true))])
    }
  }

  /// Item 9: a value the server already has is neither sent nor logged as re-sent.
  @Test func aValueTheServerHasIsNotResent() {
    var session = ClientSession(accessories: [lamp], known: knownAfterTheLampWentOn())
    _ = session.update(on, to: .bool(true))
    _ = session.opened()
    let answer = session.receive(text: Self.accessories(["lamp": ["On": .bool(true)]]))
    #expect(answer.send.isEmpty && answer.homeKitWrites.isEmpty)
    #expect(resentLogs(answer).isEmpty, "\(answer.logs)")
  }

  /// Item 9: what the hub changed after the plugin last saw the server is still sent.
  @Test func aValueTheHubChangedWhileAwayIsSent() {
    var session = ClientSession(accessories: [lamp], known: knownAfterTheLampWentOn())
    _ = session.update(on, to: .bool(false))
    _ = session.opened()
    let answer = session.receive(text: Self.accessories(["lamp": ["On": .bool(true)]]))
    #expect(answer.send == [.setValue(name: "lamp", characteristic: "On", value: .bool(false))])
    #expect(answer.homeKitWrites.isEmpty)
    #expect(answer.logs.contains { $0.message.contains("sent 1 values the hub set while Homebridge was out of reach") })
    // The same holds for a plugin restarted after that change was saved.
    var restarted = ClientSession(
      accessories: [lamp], known: KnownValues(latest: [on: .bool(false)], server: [on: .bool(true)]))
    _ = restarted.opened()
    #expect(
      restarted.receive(text: Self.accessories(["lamp": ["On": .bool(true)]])).send == [
        .setValue(name: "lamp", characteristic: "On", value: .bool(false))
      ])
  }

  /// Item 10: the hub started the plugin afresh (no values given) and Homebridge restarted
  /// meanwhile (blank values): what the plugin knew refills it.
  @Test func aBlankHomebridgeIsRefilledWithoutAnyValueFromTheHub() {
    var session = ClientSession(accessories: [lamp], known: knownAfterTheLampWentOn())
    _ = session.opened()
    let answer = session.receive(text: Self.accessories(["lamp": ["On": .string("blank")]]))
    #expect(answer.send == [.setValue(name: "lamp", characteristic: "On", value: .bool(true))])
    #expect(answer.homeKitWrites.isEmpty)
    #expect(answer.logs.contains { $0.message.contains("re-sent 1 values Homebridge did not have") })
  }

  /// Item 10: an accessory the server has just made (its cache was lost) shows defaults, not
  /// HomeKit's writes: it is refilled too.
  @Test func aRecreatedAccessoryShowingDefaultsIsRefilled() {
    var session = ClientSession(accessories: [lamp], known: knownAfterTheLampWentOn())
    _ = session.opened()
    _ = session.receive(text: ServerMessage.response(ack: true, message: "accessory 'lamp' is added.").text)
    let answer = session.receive(text: Self.accessories(["lamp": ["On": .bool(false)]]))
    #expect(answer.send == [.setValue(name: "lamp", characteristic: "On", value: .bool(true))])
    #expect(answer.homeKitWrites.isEmpty)
  }

  /// Items 9 and 10: Homebridge restarted, then HomeKit turned the lamp off before the plugin
  /// came: that is HomeKit's write, never refilled over.
  @Test func aHomeKitWriteAfterHomebridgeRestartedIsNotRefilledOver() {
    var session = ClientSession(accessories: [lamp], known: knownAfterTheLampWentOn())
    _ = session.opened()
    _ = session.receive(text: ServerMessage.response(ack: false, message: "name 'lamp' is already used.").text)
    let answer = session.receive(text: Self.accessories(["lamp": ["On": .bool(false)]]))
    #expect(answer.send.isEmpty)
    #expect(answer.homeKitWrites.map(\.value) == [.bool(false)])
  }

  /// The record keeps only what the config still has, conformed to the characteristic.
  @Test func knownValuesOfAccessoriesNoLongerConfiguredAreDropped() {
    let session = ClientSession(
      accessories: [lamp],
      known: KnownValues(
        latest: [on: .number(1), .init(accessory: "gone", characteristic: "On"): .bool(true)], server: [:]))
    #expect(session.value(on) == .bool(true))
    #expect(session.known.latest.count == 1)
  }
}
