import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// party-lights -> hub -> hue plugin -> `patchbay-sim hue`, checked from the simulator's record
/// of the commands it received and its lights' state.
@Suite(.serialized) struct PartyHueTests {
  /// The lights before the party (v1 units); light 3 is off.
  static let before: [String: [String: Int]] = [
    "1": ["on": 1, "bri": 100, "hue": 10000, "sat": 200],
    "2": ["on": 1, "bri": 200, "hue": 40000, "sat": 100],
    "3": ["on": 0, "bri": 150, "hue": 20000, "sat": 254],
  ]
  static let memberRoutes = (1...3).map { index in
    """
    [[routes]]
    from = "party.living.light\(index).light"
    to = "lights.living.light\(index).light"
    [[routes]]
    from = "lights.living.light\(index).state"
    to = "party.living.light\(index).state"
    """
  }.joined(separator: "\n")

  /// The simulator with the pre-party lights, and the hub with the hue and party instances.
  func start(party: String) throws -> (HubUnderTest, SimulatorUnderTest) {
    let hub = try HubUnderTest("patchbay-party", plugins: ["party-lights", "hue"])
    let bridge = try SimulatorUnderTest.partyBridge(directory: hub.directory)
    for (id, state) in Self.before.sorted(by: { $0.key < $1.key }) {
      let on = state["on"] == 1
      try bridge.control(
        "set \(id) on=true bri=\(state["bri"]!) hue=\(state["hue"]!) sat=\(state["sat"]!)" + (on ? "" : " on=false"))
    }
    #expect(try bridge.lightStates().mapValues { $0.filter { $0.key != "ct" } } == Self.before)
    try hub.writeConfig(bridge.partyInstanceConfig + "\n\n" + party)
    try hub.start()
    // The driver has read the bridge, so the party finds every light's state at its start.
    try hub.process?.waitForLine(containing: "answers: 3 lights", within: 90)
    return (hub, bridge)
  }

  /// Hue distance in degrees, from v1 hue values.
  static func degrees(from: Int, to: Int) -> Double {
    let delta = Double(((to - from) % 65536 + 65536) % 65536) * 360 / 65536
    return (delta * 10).rounded() / 10
  }

  static func isRestored(_ states: [String: [String: Int]]) -> Bool {
    before.allSatisfy { id, wanted in
      guard let actual = states[id], actual["on"] == wanted["on"] else { return false }
      return abs((actual["bri"] ?? -99) - wanted["bri"]!) <= 2 && abs((actual["sat"] ?? -99) - wanted["sat"]!) <= 2
        && abs((actual["hue"] ?? -999) - wanted["hue"]!) <= 200
    }
  }

  func waitForRestore(_ bridge: SimulatorUnderTest, within seconds: Double = 90) throws {
    try eventually("every light back as before the party: \((try? bridge.lightStates()) ?? [:])", within: seconds) {
      Self.isRestored(try bridge.lightStates())
    }
  }

  /// No command over the bridge's limits (the simulator drops or refuses those).
  func expectWithinRates(_ bridge: SimulatorUnderTest) {
    let over = bridge.commands().filter { $0.outcome == "dropped" || $0.outcome == "rejected" }
    #expect(over.isEmpty, "over the bridge's rate: \(over.map { "\($0.kind) \($0.id) \($0.outcome)" })")
  }

  @Test func aGroupStepsBy15DegreesSurvivesAKillAndIsRestored() throws {
    let (hub, bridge) = try start(
      party: """
        [instances.party]
        plugin = "party-lights"
        group = "living"
        members = ["light1", "light2", "light3"]

        [[routes]]
        from = "party.living.light"
        to = "lights.living.light"
        [[routes]]
        from = "lights.living.state"
        to = "party.living.state"
        \(Self.memberRoutes)
        """)
    try hub.send("party.run", "true")
    func steps() -> [SimulatorUnderTest.BridgeCommand] {
      bridge.commands().filter { $0.kind == "group" && $0.outcome == "accepted" && $0.hue != nil }
    }
    try eventually("six group steps", within: 90) { steps().count >= 6 }
    let first = steps()
    for (a, b) in zip(first, first.dropFirst()) {
      #expect(Self.degrees(from: a.hue!, to: b.hue!) == 15, "hue \(a.hue!) -> \(b.hue!)")
    }
    // 75 % saturation and full brightness, in v1 units.
    #expect(first.allSatisfy { $0.sat == 191 && $0.bri == 254 && $0.on == true }, "\(first.map(\.body))")
    expectWithinRates(bridge)

    // SIGKILL the effect's process mid-run: restarted, it resumes.
    let victim = try #require(try hub.pid(of: "party"))
    kill(victim, SIGKILL)
    try hub.process?.waitForLine(containing: "resuming the party", within: 90)
    let resumedFrom = steps().count
    try eventually("steps after the restart", within: 90) { steps().count >= resumedFrom + 3 }
    let resumed = steps().dropFirst(resumedFrom)
    for (a, b) in zip(resumed, resumed.dropFirst()) { #expect(Self.degrees(from: a.hue!, to: b.hue!) == 15) }

    // Stop: every light back, light 3 off again with its own color kept.
    try hub.send("party.run", "false")
    try waitForRestore(bridge)
    expectWithinRates(bridge)
    try hub.stop()
  }

  @Test func perLightOffsetsEqualTheSpread() throws {
    let lightRoutes = Self.memberRoutes
    let (hub, bridge) = try start(
      party: """
        [instances.party]
        plugin = "party-lights"
        lights = ["living.light1", "living.light2", "living.light3"]
        spread_degrees = 120
        bpm = 60
        saturation = 50
        brightness = 80
        \(lightRoutes)
        """)
    try hub.send("party.run", "true")
    func steps(_ id: String) -> [SimulatorUnderTest.BridgeCommand] {
      bridge.commands().filter { $0.kind == "light" && $0.id == id && $0.outcome == "accepted" && $0.hue != nil }
    }
    try eventually("five steps on every light", within: 90) { ["1", "2", "3"].allSatisfy { steps($0).count >= 5 } }
    let (one, two, three) = (steps("1"), steps("2"), steps("3"))
    for k in 0..<5 {
      #expect(Self.degrees(from: one[k].hue!, to: two[k].hue!) == 120, "step \(k)")
      #expect(Self.degrees(from: two[k].hue!, to: three[k].hue!) == 120, "step \(k)")
      #expect(one[k].sat == 127 && one[k].bri == 203, "\(one[k].body)")
    }
    for (a, b) in zip(one, one.dropFirst()) { #expect(Self.degrees(from: a.hue!, to: b.hue!) == 15) }
    expectWithinRates(bridge)
    try hub.send("party.run", "false")
    try waitForRestore(bridge)
    try hub.stop()
  }

  @Test func aStopWhileTheBridgeIsUnreachableIsAppliedWhenItReturns() throws {
    let (hub, bridge) = try start(
      party: """
        [instances.party]
        plugin = "party-lights"
        lights = ["living.light1", "living.light2", "living.light3"]
        \(Self.memberRoutes)
        """)
    try hub.send("party.run", "true")
    try eventually("party colors on the bridge", within: 90) {
      bridge.commands().filter { $0.kind == "light" && $0.sat == 191 }.count >= 6
    }
    // The bridge stops answering (frozen, as when it loses power or network) ...
    bridge.process.signal(SIGSTOP)
    try hub.send("party.run", "false")
    try hub.process?.waitForLine(containing: "party stopped (run = false)", within: 60)
    let stoppedAt = hub.process?.lines.count ?? 0
    // The driver's restore commands fail and are kept ...
    try eventually("a restore command failed and was kept", within: 90) {
      (hub.process?.lines.dropFirst(stoppedAt) ?? []).contains {
        $0.contains("failed") && $0.contains("kept, retrying")
      }
    }
    // ... until the bridge comes back: then the restore arrives.
    bridge.process.signal(SIGCONT)
    try waitForRestore(bridge)
    try hub.stop()
  }
}
