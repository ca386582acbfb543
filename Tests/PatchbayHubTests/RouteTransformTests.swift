import PatchbayValues
import Testing

@testable import PatchbayCore

@Suite struct RouteTransformTests {
  let catalog: PortCatalog = [
    "buttons": [PortDescriptor(name: "bedside.button", direction: .output, kind: .event, type: .button)],
    "scenes": [
      PortDescriptor(name: "ws_morning.on", direction: .input, kind: .state, type: .bool),
      PortDescriptor(name: "ws_evening.on", direction: .input, kind: .state, type: .bool),
      PortDescriptor(name: "level", direction: .output, kind: .state, type: .integer),
    ],
  ]

  func route(_ toml: String) throws -> CompiledRoute {
    let tree = try TOMLDocument.parse(toml, file: "test.toml").get()
    var diagnostics: [ConfigDiagnostic] = []
    guard case .array(let entries)? = tree["routes"],
      let spec = ConfigLoader().parseRoute(entries[0], index: 0, file: "test.toml", &diagnostics)
    else {
      throw ConfigErrors(diagnostics)
    }
    return try RouteCompiler.compile(spec, catalog: catalog).get()
  }

  @Test func bedsideToggleAlternatesTargetsAndFiltersClicks() throws {
    let compiled = try route(
      """
      [[routes]]
      from = "buttons.bedside.button"
      filter = ["click"]
      value = true
      cycle_to = ["scenes.ws_morning.on", "scenes.ws_evening.on"]
      momentary = { reset = false, after_ms = 1000 }
      """)
    var position = HubStateStore.RoutePosition()
    let click = Value.button(ButtonEvent(action: .click))
    let first = RouteTransform.apply(compiled, to: click, position: &position)
    #expect(first?.targets.map(\.description) == ["scenes.ws_morning.on"])
    #expect(first?.value == .bool(true))
    #expect(RouteTransform.apply(compiled, to: .button(ButtonEvent(action: .hold)), position: &position) == nil)
    let second = RouteTransform.apply(compiled, to: click, position: &position)
    #expect(second?.targets.map(\.description) == ["scenes.ws_evening.on"])
    #expect(compiled.momentaryReset == .bool(false))
  }

  @Test func mapConvertsButtonActionsToBools() throws {
    let compiled = try route(
      """
      [[routes]]
      from = "buttons.bedside.button"
      to = "scenes.ws_morning.on"
      map = { click = true, hold = false }
      """)
    var position = HubStateStore.RoutePosition()
    #expect(
      RouteTransform.apply(compiled, to: .button(ButtonEvent(action: .hold)), position: &position)?.value
        == .bool(false))
    #expect(RouteTransform.apply(compiled, to: .button(ButtonEvent(action: .down)), position: &position) == nil)
  }

  @Test func typeMismatchNamesBothEnds() throws {
    #expect {
      try route(
        """
        [[routes]]
        from = "scenes.level"
        to = "scenes.ws_morning.on"
        """)
    } throws: { error in
      "\(error)".contains("scenes.level is integer but scenes.ws_morning.on is bool")
    }
  }

  @Test func unknownNamesGetSuggestions() throws {
    #expect {
      try route(
        """
        [[routes]]
        from = "buttons.bedside.buton"
        to = "scene.ws_morning.on"
        """)
    } throws: { error in
      "\(error)".contains("did you mean 'bedside.button'") && "\(error)".contains("did you mean 'scenes'")
    }
  }
}
