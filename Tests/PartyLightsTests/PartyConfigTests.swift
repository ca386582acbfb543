import PartyLightsProtocol
import PatchbayPluginKit
import Testing

/// Config mistakes are refused with the key and what would be right.
struct PartyConfigTests {
  func message(_ json: String) -> String {
    do {
      _ = try PartyConfig(json: json)
      return "accepted"
    } catch {
      return "\(error)"
    }
  }

  @Test(arguments: [
    (#"{"group": "g", "step_degree": 10}"#, "unknown key 'step_degree' (did you mean 'step_degrees'?)"),
    (#"{}"#, "missing required key 'group'"),
    (#"{"group": "g", "lights": ["a"]}"#, "group and lights exclude each other"),
    (#"{"lights": []}"#, "lights must name at least one light"),
    (#"{"lights": ["a", "a"]}"#, "lights.1: 'a' is listed twice"),
    (#"{"lights": ["Lamp"]}"#, "lights.0 'Lamp' must be lowercase letters"),
    (#"{"lights": ["a"], "members": ["b"]}"#, "members belongs with group"),
    (#"{"group": "g", "spread_degrees": 30}"#, "spread_degrees needs per-light targets"),
    (#"{"group": "g", "saturation": 120}"#, "saturation must be between 0 and 100 %, not 120"),
    (#"{"group": "g", "brightness": 0}"#, "brightness must be between 1 and 100 %, not 0"),
    (#"{"group": "g", "saturation": "high"}"#, "key 'saturation' must be a number"),
    (#"{"group": "g", "period_s": 24, "bpm": 60}"#, "period_s and bpm exclude each other"),
    (#"{"group": "g", "palette": [0], "step_degrees": 15}"#, "step_degrees and palette exclude each other"),
    (#"{"group": "g", "palette": []}"#, "palette must list at least one color"),
    (#"{"group": "g", "palette": [0, {"hue": 400}]}"#, "palette.1.hue must be 0...360 degrees, not 400"),
    (#"{"group": "g", "direction": "left"}"#, #"direction must be "forward" or "backward", not "left""#),
    (#"{"group": "g", "order": "shuffle"}"#, #"order must be "sequential" or "random", not "shuffle""#),
    (#"{"group": "g", "group_rate": 0}"#, "group_rate must be between 0.01 and 100 commands/s, not 0"),
    (#"{"group": "g", "step_degrees": 0}"#, "step_degrees must be between 0.1 and 180°, not 0"),
    (
      #"{"group": "g", "palette": [0, {"hue": 90, "saturaton": 50}]}"#,
      "unknown key 'palette.1.saturaton' (did you mean 'palette.1.saturation'?)"
    ),
    (#"{"group": "g", "birghtness": 50}"#, "unknown key 'birghtness' (did you mean 'brightness'?)"),
  ])
  func refusesWithTheKey(json: String, expected: String) {
    let text = message(json)
    #expect(text.contains(expected), "\(json) -> \(text)")
  }

  @Test func aRateAboveTheDriversIsAcceptedAndExplained() throws {
    let config = try PartyConfig(json: #"{"group": "g", "bpm": 120}"#)
    #expect(config.plan.rateWarning()?.contains("running at 1 steps/s (one step every 1 s)") == true)
  }
}
