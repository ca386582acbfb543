import FlicBLEBlueZ
import FlicBLEProtocol
import Testing

@testable import FlicBLEPlugin

/// The plugin's config and press rules: the flic plugin's button table, flicd's keys refused.
@Suite struct FlicBLEConfigTests {
  @Test func readsTheFlicButtonTable() throws {
    let config = try FlicBLEConfig(
      json: #"{"buttons":[{"name":"bedside","address":"80:e4:da:71:b6:8e"}],"max_queued_age_s":5}"#)
    #expect(config.buttons.map(\.name) == ["bedside"])
    #expect(config.buttons.first?.address.description == "80:E4:DA:71:B6:8E")
    #expect(config.maxQueuedAgeSeconds == 5)
    #expect(config.testFactoryKeys.isEmpty)
    #expect(config.buttons.first?.model == .flic2)
    let duo = try FlicBLEConfig(json: #"{"buttons":[{"name":"desk","address":"80:e4:da:71:b6:8f","model":"duo"}]}"#)
    #expect(duo.buttons.first?.model == .duo)
    let twists = try FlicBLEConfig(
      json: #"{"buttons":[{"name":"dial","address":"80:e4:da:71:b6:90","model":"twist"},"#
        + #"{"name":"picker","address":"80:e4:da:71:b6:91","model":"twist","twist_mode":"selector"}],"#
        + #""test_factory_key":["\#(String(repeating: "ab", count: 32))","\#(String(repeating: "cd", count: 32))"]}"#)
    #expect(twists.buttons.map(\.twistMode) == [.dimmer, .selector])
    #expect(twists.buttons.allSatisfy { $0.model == .twist })
    #expect(twists.testFactoryKeys.count == 2)
  }

  @Test(arguments: [
    (#"{"buttons":[],"port":5551}"#, "port is the flic plugin's (flicd)"),
    (#"{"buttons":[{"name":"a","address":"80:e4:da:71:b6:8e","latency_mode":"low"}]}"#, "latency_mode is flicd's"),
    (#"{"buttons":[{"name":"a","address":"80:e4:da:71:b6"}]}"#, "must be a Bluetooth address"),
    (#"{"buttons":[{"name":"A b","address":"80:e4:da:71:b6:8e"}]}"#, "must be 1 to 48 lowercase letters"),
    (
      #"{"buttons":[{"name":"a","address":"80:e4:da:71:b6:8e"},{"name":"a","address":"80:e4:da:71:b6:8f"}]}"#,
      "buttons.1.name 'a' is used twice"
    ),
    (#"{}"#, "missing required key 'buttons'"),
    (#"{"buttons":[],"test_factory_key":"abcd"}"#, "must be 64 hex digits"),
    (
      #"{"buttons":[{"name":"a","address":"80:e4:da:71:b6:8e","model":"trio"}]}"#,
      #"buttons.0.model 'trio' is not a Flic model this plugin knows: use "flic2" or "duo" or "twist""#
    ),
    (
      #"{"buttons":[{"name":"a","address":"80:e4:da:71:b6:8e","model":"twist","twist_mode":"knob"}]}"#,
      #"buttons.0.twist_mode 'knob' is not a Twist mode: use "dimmer" or "selector""#
    ),
    (
      #"{"buttons":[{"name":"a","address":"80:e4:da:71:b6:8e","twist_mode":"dimmer"}]}"#,
      #"buttons.0.twist_mode is for a Flic Twist only: add model = "twist" or remove it"#
    ),
  ])
  func refusesWithTheKeyAndWhatIsRight(_ json: String, _ message: String) {
    #expect {
      try FlicBLEConfig(json: json)
    } throws: { error in
      "\(error)".contains(message)
    }
  }

  @Test func pressesFollowTheFlicPluginsRules() {
    let filter = PressFilter(exposeUpDown: false, maxQueuedAgeSeconds: 3)
    #expect(
      filter.translate(ButtonPress(action: .click, eventCount: 4, wasQueued: false, ageSeconds: 0))
        == .publish(.init(action: .click)))
    #expect(filter.translate(ButtonPress(action: .down, eventCount: 1, wasQueued: false, ageSeconds: 0)) == .ignore)
    #expect(
      filter.translate(ButtonPress(action: .doubleClick, eventCount: 8, wasQueued: true, ageSeconds: 2.5))
        == .publish(.init(action: .doubleClick, queued: true, ageMs: 2500)))
    #expect(
      filter.translate(ButtonPress(action: .hold, eventCount: 10, wasQueued: true, ageSeconds: 31))
        == .dropStale(.hold, ageSeconds: 31))
    #expect(BatteryPercent.of(millivolts: 3000) == 100 && BatteryPercent.of(millivolts: 2750) == 50)
    #expect(BatteryPercent.of(millivolts: 2300) == 0)
    #expect(
      BatteryPercent.of(millivolts: 3000, twist: true) == 100 && BatteryPercent.of(millivolts: 2600, twist: true) == 50)
  }
}
