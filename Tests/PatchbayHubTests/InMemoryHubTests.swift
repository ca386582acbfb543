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

  static let quickRestarts = """
    backoff_initial_ms = 10
    backoff_max_ms = 50
    """

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
    let setup = try InMemoryHub(Self.buttonToLamp(lamp: Self.quickRestarts), ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    let plugins = setup.plugins
    plugins.plugin("button")!.publish(.integer(1), on: "press")
    #expect(plugins.waitFor { $0.inputs(of: "lamp").count == 1 })

    plugins.plugin("lamp")!.crash()
    // Published while the lamp is down or restarting: it waits in the lamp's inbox.
    plugins.plugin("button")!.publish(.integer(2), on: "press")
    #expect(plugins.waitFor { $0.launches(of: "lamp") == 2 && $0.inputs(of: "lamp").count == 2 })
    #expect(plugins.inputs(of: "lamp").map(\.value) == [.integer(1), .integer(2)])
    #expect(setup.status("lamp")?.restarts == 1)
    #expect(setup.status("lamp")?.lastExit == "killed by signal SIGSEGV")
    #expect(setup.hub.status().routes.map(\.values) == [2])
  }

  @Test func theIntensityLimitStopsRestartingACrashLoop() throws {
    let setup = try InMemoryHub(
      """
      [instances.lamp]
      plugin = "embedded"
      \(Self.quickRestarts)
      max_restarts = 2
      restart_window_s = 60
      """, ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    for launch in 1...3 {
      #expect(setup.plugins.waitFor { $0.launches(of: "lamp") == launch && setup.status("lamp")?.phase == .running })
      setup.plugins.plugin("lamp")!.crash()
    }
    #expect(setup.plugins.waitFor { _ in setup.status("lamp")?.phase == .failed })
    #expect(setup.plugins.launches(of: "lamp") == 3)
    let failure = try #require(setup.status("lamp")?.failure)
    #expect(failure.contains("2"), "the failure names the limit: \(failure)")
  }

  @Test func aReloadRestartsOnlyTheInstanceWhoseConfigChanged() throws {
    let before = Self.buttonToLamp(lamp: "brightness = 1")
    let setup = try InMemoryHub(before, ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    let summary = try setup.reload(before.replacingOccurrences(of: "brightness = 1", with: "brightness = 2"))
    #expect(summary.restarted == ["lamp"])
    #expect(summary.unchanged == ["button"])
    #expect(setup.plugins.launches(of: "button") == 1)
    #expect(setup.plugins.launches(of: "lamp") == 2)
    // The route still connects the unchanged producer to the new consumer process.
    setup.plugins.plugin("button")!.publish(.integer(7), on: "press")
    #expect(setup.plugins.waitFor { $0.inputs(of: "lamp").map(\.value) == [.integer(7)] })
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

  @Test func aHungPluginIsKilledAndRestarted() throws {
    let setup = try InMemoryHub(
      """
      [instances.lamp]
      plugin = "embedded"
      \(Self.quickRestarts)
      heartbeat_interval_ms = 50
      hang_timeout_ms = 200
      """, ports: Self.buttonAndLamp)
    defer { setup.stop() }
    try setup.hub.start()
    #expect(setup.plugins.waitFor { _ in setup.status("lamp")?.phase == .running })
    setup.plugins.plugin("lamp")!.hang()
    #expect(setup.plugins.waitFor { $0.launches(of: "lamp") == 2 })
    #expect(setup.plugins.waitFor { _ in setup.status("lamp")?.restarts == 1 })
    #expect(setup.status("lamp")?.lastExit?.contains("stopped answering heartbeats") == true)
  }
}
