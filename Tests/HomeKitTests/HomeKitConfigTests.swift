import PatchbayPluginKit
import Testing

@testable import HomeKitPlugin

/// The instance's config: every mistake names its key and what would be right (`patchbay check`
/// shows it with the file).
struct HomeKitConfigTests {
  func message(_ json: String) -> String {
    do {
      _ = try PluginContext.decodeConfig(HomeKitConfig.self, json: json)
      return "accepted"
    } catch {
      return "\(error)"
    }
  }

  static func accessories(_ count: Int) -> String {
    "[" + (0..<count).map { #"{"name": "switch \#($0)", "service": "switch"}"# }.joined(separator: ",") + "]"
  }

  @Test(arguments: [
    (#"{"acessories": []}"#, "unknown key 'acessories' (did you mean 'accessories'?)"),
    (#"{"name": "x"}"#, "missing required key 'accessories'"),
    (#"{"accessories": []}"#, "accessories must list at least one accessory"),
    (#"{"accessories": [{"name": "Lamp", "service": "toaster"}]}"#, "accessories.0.service unknown service 'toaster'"),
    (
      #"{"accessories": [{"name": "Lamp", "service": "switch"}, {"name": "Lamp", "service": "outlet"}]}"#,
      "accessories.1.name: 'Lamp' is listed twice (also accessories.0.name)"
    ),
    (
      #"{"accessories": [{"name": "Desk lamp", "service": "switch"}, {"name": "desk_lamp", "service": "outlet"}]}"#,
      "accessories.1.name: 'desk_lamp' and 'Desk lamp' both give port names 'desk_lamp.*'"
    ),
    (#"{"setup_code": "123-45-678", "accessories": [{"name": "a", "service": "switch"}]}"#, "setup_code"),
    (#"{"setup_code": "111-11-111", "accessories": [{"name": "a", "service": "switch"}]}"#, "setup_code"),
    (#"{"setup_code": "12345678", "accessories": [{"name": "a", "service": "switch"}]}"#, "setup_code"),
    (#"{"port": 70000, "accessories": [{"name": "a", "service": "switch"}]}"#, "port must be 1...65535, not 70000"),
    (
      #"{"accessories": [{"name": "a", "service": "switch", "characteristics": ["brightness"]}]}"#,
      "accessories.0.characteristics is only for a lightbulb"
    ),
    (
      #"{"accessories": [{"name": "a", "service": "lightbulb", "characteristics": ["warmth"]}]}"#,
      "accessories.0.characteristics has 'warmth'"
    ),
    (#"{"accessories": [{"name": "", "service": "switch"}]}"#, "accessories.0.name must be 1 to 64 characters"),
    (
      #"{"accessories": \#(accessories(150))}"#,
      "accessories lists 150 accessories; a HomeKit bridge serves at most 149"
    ),
  ])
  func refusesWithTheKey(json: String, expected: String) {
    let text = message(json)
    #expect(text.contains(expected), "\(json.prefix(120)) -> \(text)")
  }

  @Test func acceptsEveryServiceAndHomeKitsNames() throws {
    let services = ServiceKind.allCases.map(\.rawValue) + ["Switch", "Lightbulb", "StatelessProgrammableSwitch"]
    let json =
      #"{"name": "Bedroom", "port": 51826, "setup_code": "031-45-154", "accessories": ["#
      + services.enumerated().map { #"{"name": "a\#($0.offset)", "service": "\#($0.element)"}"# }
      .joined(separator: ",") + "]}"
    let config = try PluginContext.decodeConfig(HomeKitConfig.self, json: json)
    #expect(config.accessories.count == services.count)
    #expect(config.setupCode?.description == "031-45-154")
    #expect(config.accessories.last?.service == .programmableSwitch)
    #expect(message(#"{"accessories": \#(Self.accessories(149))}"#) == "accepted")
  }

  @Test func lightbulbOptionsPickCharacteristics() throws {
    let config = try PluginContext.decodeConfig(
      HomeKitConfig.self,
      json:
        #"{"accessories": [{"name": "a", "service": "lightbulb", "characteristics": ["color_temperature", "brightness"]}]}"#
    )
    #expect(config.accessories[0].characteristics.map(\.type) == ["25", "8", "CE"])
  }
}
