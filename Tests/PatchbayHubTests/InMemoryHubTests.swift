import Foundation
import PatchbayValues
import Testing

@testable import PatchbayCore

/// The hub's core on in-memory plugins: each test runs a whole hub (supervision, routes,
/// inboxes, reloads, scenes) without a process, in a fraction of a second.
@Suite struct InMemoryHubTests {
  static let buttonAndLamp: [String: [PortDescriptor]] = [
    "button": [.output("press", .integer)],
    "lamp": [.input("level", .integer), .input("mode", .text, .state)],
  ]

  /// `button.press` routed to `lamp.level`, with `lamp` keys of the test's own.
  static func buttonToLamp(lamp keys: String = "") -> String {
    """
    [instances.button]
    plugin = "embedded"
    [instances.lamp]
    plugin = "embedded"
    \(keys)
    [[routes]]
    from = "button.press"
    to = "lamp.level"
    """
  }

  @Test func aRouteDeliversThroughARestartOfItsConsumer() throws {
    let setup = try InMemoryHub(Self.buttonToLamp(), ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    let plugins = setup.plugins
    plugins.plugin("button")!.publish(.integer(1), on: "press")
    #expect(plugins.waitFor { $0.inputs(of: "lamp").count == 1 })

    plugins.plugin("lamp")!.crash()
    #expect(setup.waitForPhase(.restarting, of: "lamp"))
    // Published while the lamp is down: it waits in the lamp's inbox through the back-off.
    plugins.plugin("button")!.publish(.integer(2), on: "press")
    setup.advance(by: 0.61)  // the first back-off: 0.5 s, jittered by at most 20 %
    #expect(plugins.waitFor { $0.launches(of: "lamp") == 2 && $0.inputs(of: "lamp").count == 2 })
    #expect(plugins.inputs(of: "lamp").map(\.value) == [.integer(1), .integer(2)])
    #expect(setup.status("lamp")?.restarts == 1)
    #expect(setup.status("lamp")?.lastExit == "killed by signal SIGSEGV")
    #expect(setup.hub.status().routes.map(\.values) == [2])
  }

  /// A process that ends before its launcher has returned is a crash like any other: restarted
  /// after its back-off, not kept as the current process (whose stop then waited out its
  /// timeouts, and whose instance never ran again).
  @Test func anExitBeforeTheLauncherReturnsIsACrash() throws {
    let setup = try InMemoryHub(Self.buttonToLamp(), ports: Self.buttonAndLamp)
    defer { setup.stop() }
    setup.plugins.exitWithinNextLaunch("lamp")
    try setup.hub.start()
    #expect(setup.waitForPhase(.restarting, of: "lamp"))
    setup.advance(by: 0.61)  // the first back-off: 0.5 s, jittered by at most 20 %
    #expect(setup.plugins.waitFor { $0.launches(of: "lamp") == 2 })
    #expect(setup.waitForPhase(.running, of: "lamp"))
    #expect(setup.status("lamp")?.restarts == 1)
    #expect(setup.status("lamp")?.lastExit == "killed by signal SIGSEGV")
  }

  /// Back-off doubles from 0.5 s with each crash in a row (jitter 0.8 to 1.2); a restart never
  /// comes before its back-off, and a run longer than `stable_after_s` starts over at 0.5 s.
  @Test func backOffDoublesAndAStableRunResetsIt() throws {
    let setup = try InMemoryHub(
      """
      [instances.lamp]
      plugin = "embedded"
      max_restarts = 100
      """, ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    #expect(setup.waitForPhase(.running, of: "lamp"))
    for (launch, backoff) in [(2, 0.5), (3, 1.0), (4, 2.0), (5, 4.0)] {
      setup.plugins.plugin("lamp")!.crash()
      #expect(setup.waitForPhase(.restarting, of: "lamp"))
      setup.advance(by: backoff * 0.8 - 0.01)
      #expect(setup.plugins.launches(of: "lamp") == launch - 1, "restarted before its back-off of \(backoff) s")
      setup.advance(by: backoff * 0.4 + 0.02)
      #expect(setup.plugins.launches(of: "lamp") == launch, "not restarted after its back-off of \(backoff) s")
      #expect(setup.waitForPhase(.running, of: "lamp"))
    }
    setup.advance(by: 31)  // longer than stable_after_s (30)
    setup.plugins.plugin("lamp")!.crash()
    #expect(setup.waitForPhase(.restarting, of: "lamp"))
    setup.advance(by: 0.61)
    #expect(setup.plugins.launches(of: "lamp") == 6, "a stable run starts back-off over at 0.5 s")
  }

  /// A lamp alone, allowed `limit` restarts within 60 s.
  static func lampAlone(limit: Int) throws -> InMemoryHub {
    try InMemoryHub(
      """
      [instances.lamp]
      plugin = "embedded"
      max_restarts = \(limit)
      restart_window_s = 60
      """, ports: buttonAndLamp)
  }

  @Test func theIntensityLimitStopsRestartingACrashLoop() throws {
    let setup = try Self.lampAlone(limit: 2)
    defer { setup.stop() }
    try setup.hub.start()
    for launch in 1...3 {
      #expect(setup.waitForLaunch(launch, of: "lamp"))
      setup.plugins.plugin("lamp")!.crash()
      if launch < 3 {
        #expect(setup.waitForPhase(.restarting, of: "lamp"))
        setup.advance(by: 5)
      }
    }
    #expect(setup.waitForPhase(.failed, of: "lamp"))
    setup.advance(by: 3_600)
    #expect(setup.plugins.launches(of: "lamp") == 3, "a failed instance stays down")
    let failure = try #require(setup.status("lamp")?.failure)
    #expect(failure.contains("2"), "the failure names the limit: \(failure)")
  }

  /// Two crashes a minute apart are not a crash loop: the window forgets the older one.
  @Test func crashesFurtherApartThanTheWindowAreEachRestarted() throws {
    let setup = try Self.lampAlone(limit: 1)
    defer { setup.stop() }
    try setup.hub.start()
    for launch in 1...3 {
      #expect(setup.waitForLaunch(launch, of: "lamp"))
      setup.advance(by: 61)
      setup.plugins.plugin("lamp")!.crash()
      #expect(setup.waitForPhase(.restarting, of: "lamp"))
      setup.advance(by: 5)
    }
    #expect(setup.plugins.waitFor { $0.launches(of: "lamp") == 4 })
    #expect(setup.status("lamp")?.restarts == 3)
  }

  @Test func aReloadRestartsOnlyTheInstanceWhoseConfigChanged() throws {
    let before = Self.buttonToLamp(lamp: "brightness = 1")
    let setup = try InMemoryHub(before, ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    setup.plugins.plugin("button")!.publish(.integer(6), on: "press")
    #expect(setup.plugins.waitFor { $0.inputs(of: "lamp").count == 1 })
    let summary = try setup.reload(before.replacingOccurrences(of: "brightness = 1", with: "brightness = 2"))
    #expect(summary.restarted == ["lamp"])
    #expect(summary.unchanged == ["button"])
    #expect(setup.plugins.launches(of: "button") == 1)
    #expect(setup.plugins.launches(of: "lamp") == 2)
    // The route still connects the unchanged producer to the new consumer process.
    setup.plugins.plugin("button")!.publish(.integer(7), on: "press")
    #expect(setup.plugins.waitFor { $0.inputs(of: "lamp").map(\.value) == [.integer(6), .integer(7)] })
    #expect(setup.hub.status().routes.map(\.values) == [2], "the kept route goes on counting")
  }

  @Test func aFloodIntoASlowConsumerIsSlowedDownNotDropped() throws {
    let setup = try InMemoryHub(
      Self.buttonToLamp(lamp: "queue_size = 4\nhang_timeout_ms = 60000"), ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    let plugins = setup.plugins
    plugins.setSlow("lamp", true)
    let button = plugins.plugin("button")!
    for value in 1...200 { button.publish(.integer(Int64(value)), on: "press") }
    // The lamp's queue fills, then the hub stops taking the button's events.
    #expect(plugins.waitFor { _ in setup.status("lamp")?.queueDepth == 4 })
    plugins.setSlow("lamp", false)
    #expect(plugins.waitFor { $0.inputs(of: "lamp").count == 200 })
    #expect(plugins.inputs(of: "lamp").map(\.value) == (1...200).map { Value.integer(Int64($0)) })
    #expect(setup.status("lamp")?.drops == 0)
    #expect(setup.hub.status().routes.allSatisfy { $0.drops == 0 })
    #expect((setup.status("button")?.backPressureWaits ?? 0) > 0)
  }

  @Test func aSceneHandsOutItsValuesAndAnnouncesItself() throws {
    let setup = try InMemoryHub(
      """
      [instances.lamp]
      plugin = "embedded"
      [instances.counter]
      plugin = "embedded"
      [scenes.evening]
      "lamp.mode" = "dim"
      "lamp.level" = 30
      [[routes]]
      from = "scene.evening.activated"
      to = "counter.seen"
      """,
      ports: Self.buttonAndLamp.merging(["counter": [.input("seen", .trigger)]]) { $1 })
    defer { setup.stop() }
    try setup.hub.start()
    try setup.hub.activate(scene: "evening")
    #expect(setup.plugins.waitFor { $0.inputs(of: "lamp").count == 2 && $0.inputs(of: "counter").count == 1 })
    let lamp = setup.plugins.inputs(of: "lamp")
    #expect(Set(lamp.map(\.port)) == ["mode", "level"])
    #expect(lamp.first { $0.port == "mode" }?.value == .text("dim"))
    #expect(setup.hub.status().scenes.first?.activations == 1)
    #expect(throws: ControlError.self) { try setup.hub.activate(scene: "evenin") }
  }

  /// Heartbeats every 2 s, killed after 10 s without an answer (the defaults), on the clock.
  @Test func aHungPluginIsKilledAndRestarted() throws {
    let setup = try InMemoryHub(
      """
      [instances.lamp]
      plugin = "embedded"
      """, ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    #expect(setup.waitForPhase(.running, of: "lamp"))
    setup.plugins.plugin("lamp")!.hang()
    setup.advance(by: 9)
    #expect(setup.plugins.launches(of: "lamp") == 1, "killed before its hang timeout")
    // Killed within the next 4 s, and restarted after its 0.5 s back-off within them too.
    setup.advance(by: 4)
    #expect(setup.plugins.waitFor { $0.launches(of: "lamp") == 2 })
    #expect(setup.status("lamp")?.restarts == 1)
    #expect(setup.status("lamp")?.lastExit?.contains("stopped answering heartbeats") == true)
  }

  /// A plugin that answers is never taken for hung, however long the hub runs.
  @Test func anAnsweringPluginRunsForAnHourUntouched() throws {
    let setup = try InMemoryHub(Self.buttonToLamp(), ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    #expect(setup.waitForPhase(.running, of: "lamp"))
    setup.advance(by: 3_600)
    #expect(setup.plugins.launches(of: "lamp") == 1)
    #expect(setup.plugins.launches(of: "button") == 1)
    #expect(setup.status("lamp")?.phase == .running)
  }

  /// `momentary`: the route's value, then its reset to the same target after `after_ms`.
  @Test func aMomentaryRouteResetsItsTargetOnTheClock() throws {
    let setup = try InMemoryHub(
      Self.buttonToLamp() + "\nmomentary = { reset = 0, after_ms = 1500 }", ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    let published = setup.clock.now
    setup.plugins.plugin("button")!.publish(.integer(5), on: "press")
    #expect(setup.plugins.waitFor { $0.inputs(of: "lamp").count == 1 })
    // The reset is scheduled just after the value is delivered: moving time before it is
    // scheduled would put it after the advances below (seen on a loaded machine).
    #expect(setup.plugins.waitFor { _ in setup.clock.hasTimer(dueAt: published + 1.5) })
    setup.advance(by: 1.4)
    #expect(setup.plugins.inputs(of: "lamp").count == 1, "reset before after_ms")
    setup.advance(by: 0.2)
    #expect(setup.plugins.waitFor { $0.inputs(of: "lamp").map(\.value) == [.integer(5), .integer(0)] })
  }

  /// What the hub remembers: a toggle's position is saved at once (a crash right after a press
  /// must not lose it); a state output's value is saved half a second after it changes, on the
  /// clock; a hub started on the same storage goes on from there.
  @Test func aToggleGoesOnWhereTheLastHubLeftIt() throws {
    let toml = """
      [instances.button]
      plugin = "embedded"
      [instances.lamp]
      plugin = "embedded"
      [[routes]]
      from = "button.press"
      to = "lamp.mode"
      cycle = ["on", "off"]
      [[routes]]
      from = "button.mood"
      to = "lamp.mood"
      """
    let ports: [String: [PortDescriptor]] = [
      "button": [.output("press", .trigger), .output("mood", .text, .state)],
      "lamp": [.input("mode", .text, .state), .input("mood", .text, .state)],
    ]
    let first = try InMemoryHub(toml, ports: ports)
    try first.hub.start()
    first.plugins.plugin("button")!.publish(.trigger, on: "press")
    #expect(first.plugins.waitFor { $0.inputs(of: "lamp").map(\.value) == [.text("on")] })
    // Saved right after the delivery, with no time passing on the clock.
    #expect(first.plugins.waitFor { _ in first.storage.saves.last?.routes.values.first?.cycle == 1 })

    first.plugins.plugin("button")!.publish(.text("calm"), on: "mood")
    #expect(first.plugins.waitFor { $0.inputs(of: "lamp").count == 2 })
    #expect(first.storage.saves.last?.retained["button.mood"] == nil, "saved before its half second")
    first.advance(by: 0.5)
    #expect(first.storage.saves.last?.retained["button.mood"]?.value == .string("calm"))
    first.stop()

    let second = try InMemoryHub(toml, ports: ports, storage: first.storage)
    defer { second.stop() }
    try second.hub.start()
    // The retained mood reaches the new lamp by itself; the toggle goes on to its second value.
    #expect(second.plugins.waitFor { $0.inputs(of: "lamp").map(\.value) == [.text("calm")] })
    second.plugins.plugin("button")!.publish(.trigger, on: "press")
    #expect(second.plugins.waitFor { $0.inputs(of: "lamp").count == 2 })
    #expect(second.plugins.inputs(of: "lamp").last?.port == "mode")
    #expect(second.plugins.inputs(of: "lamp").last?.value == .text("off"))
  }
}
