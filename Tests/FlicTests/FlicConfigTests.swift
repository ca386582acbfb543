import FlicProtocol
import PatchbayPluginKit
import Testing

@testable import FlicPlugin

@Suite struct FlicConfigTests {
  @Test func appliesDefaultsAndPerButtonOverrides() throws {
    let config = try FlicConfig(
      json: """
        {"latency_mode": "high", "auto_disconnect_s": 60, "buttons": [
          {"name": "bedside", "address": "80:E4:DA:71:B6:8E"},
          {"name": "hall", "address": "08:09:0a:0b:0c:0d", "latency_mode": "low", "auto_disconnect_s": 0}]}
        """)
    #expect(config.host == "127.0.0.1")
    #expect(config.port == 5551)
    #expect(config.clickEvents == .singleDoubleHold)
    #expect(config.maxQueuedAgeSeconds == 3)
    #expect(config.exposeUpDown == false)
    #expect(
      config.buttons == [
        .init(name: "bedside", address: bedside, latencyMode: .high, autoDisconnectSeconds: 60),
        .init(name: "hall", address: hallway, latencyMode: .low, autoDisconnectSeconds: 0),
      ])
  }

  @Test(arguments: [
    (#"{"buttons": []", "prot": 1}"#, "not a table"),
    (#"{"buttons": [], "prot": 1}"#, "did you mean 'port'"),
    (#"{}"#, "'buttons'"),
    (#"{"buttons": [{"name": "Bed Side", "address": "80:e4:da:71:b6:8e"}]}"#, "buttons.0.name"),
    (#"{"buttons": [{"name": "a", "address": "80:e4:da:71:b6"}]}"#, "buttons.0.address"),
    (
      #"{"buttons": [{"name": "a", "address": "80:e4:da:71:b6:8e", "latency_mode": "fast"}]}"#, "buttons.0.latency_mode"
    ),
    (#"{"buttons": [], "auto_disconnect_s": 600}"#, "auto_disconnect_s must be 0...511"),
    (#"{"buttons": [], "click_events": "double"}"#, "click_events must be"),
    (#"{"buttons": [], "port": "5551"}"#, "key 'port' must be an integer"),
    (#"{"buttons": [], "port": 70000}"#, "port must be 1...65535, not 70000"),
    (#"{"buttons": [], "ping_interval_s": 0}"#, "ping_interval_s must be between 0.1 and 3600 s, not 0"),
    (#"{"buttons": {}}"#, "buttons must be an array of tables"),
    (#"{"buttons": [], "latency_mode": "fast"}"#, #"latency_mode must be "normal", "low" or "high", not "fast""#),
    (#"{"buttons": [], "click_event": "click_hold"}"#, "unknown key 'click_event' (did you mean 'click_events'?)"),
    (
      #"{"buttons": [{"name": "a", "address": "80:e4:da:71:b6:8e"}, {"name": "a", "address": "08:09:0a:0b:0c:0d"}]}"#,
      "used twice"
    ),
    (#"{"buttons": [{"name": "a", "adress": "80:e4:da:71:b6:8e"}]}"#, "did you mean 'buttons.0.address'"),
  ])
  func namesTheKeyOfAMistake(json: String, expected: String) {
    do {
      _ = try FlicConfig(json: json)
      Issue.record("accepted \(json)")
    } catch {
      #expect("\(error)".contains(expected), "\(error)")
    }
  }
}
