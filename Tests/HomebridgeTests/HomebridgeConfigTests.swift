import PatchbayPluginKit
import Testing

@testable import HomebridgePlugin

/// The instance's config: a mistake names its key and what would be right.
struct HomebridgeConfigTests {
  func message(_ json: String) -> String {
    do {
      _ = try PluginContext.decodeConfig(HomebridgeConfig.self, json: json)
      return "accepted"
    } catch {
      return "\(error)"
    }
  }

  @Test(arguments: [
    (#"{"acessories": []}"#, "unknown key 'acessories' (did you mean 'accessories'?)"),
    (
      #"{"accessories": [{"name": "desk", "servise": "Lightbulb"}]}"#,
      "unknown key 'accessories.0.servise' (did you mean 'accessories.0.service'?)"
    ),
    (#"{"url": "ws://127.0.0.1:4050"}"#, "missing required key 'accessories'"),
    (#"{"accessories": [{"name": "desk", "service": 1}]}"#, "key 'accessories.0.service' must be a string"),
  ])
  func refusesWithTheKey(json: String, expected: String) {
    let text = message(json)
    #expect(text.contains(expected), "\(json) -> \(text)")
  }

  @Test func aCompleteConfigIsRead() throws {
    let config = try PluginContext.decodeConfig(
      HomebridgeConfig.self,
      json: #"{"accessories": [{"name": "desk", "service": "Lightbulb", "characteristics": ["brightness"]}]}"#)
    #expect(config.url == nil)
    #expect(config.accessories.map(\.name) == ["desk"])
    #expect(config.accessories.first?.characteristics == ["brightness"])
  }
}
