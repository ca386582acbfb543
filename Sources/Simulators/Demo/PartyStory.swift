import Foundation

/// The party part of the demo: the Hue simulator's bedroom (three color lights, one of them
/// off), the hue and party-lights instances, and showing what the bridge accepted.
enum PartyStory {
  static let username = "patchbaydemo"
  /// The bedroom before the party, as the simulator's `set` control commands take it (v1 units).
  static let lightsBefore = [
    ("1", "on=true bri=254 hue=8000 sat=200"),
    ("2", "on=true bri=80 hue=46920 sat=254"),
    ("3", "on=false bri=200 hue=25500 sat=254"),
  ]

  static func simulatorArguments(directory: String) -> [String] {
    [
      "hue", "--port", "0", "--lights", "3", "--group", "bedroom=1,2,3", "--username", username,
      "--control", directory + "/hue.sock", "--record", directory + "/hue.jsonl", "--print-events", "--no-stdin",
    ]
  }

  /// The hue and party-lights instances and their routes, added to the bedside config.
  static func config(huePort: Int) -> String {
    var routes = """
      [[routes]]
      from = "party.bedroom.light"
      to = "lights.bedroom.light"
      [[routes]]
      from = "lights.bedroom.state"
      to = "party.bedroom.state"

      """
    for member in ["light1", "light2", "light3"] {
      routes += """
        [[routes]]
        from = "party.bedroom.\(member).light"
        to = "lights.bedroom.\(member).light"
        [[routes]]
        from = "lights.bedroom.\(member).state"
        to = "party.bedroom.\(member).state"

        """
    }
    return """
      [instances.lights]
      plugin = "hue"
      bridge = "127.0.0.1:\(huePort)"
      username = "\(username)"
      poll_interval_s = 1
      [[instances.lights.groups]]
      name = "bedroom"
      id = "1"
      lights = ["1", "2", "3"]
      expose_lights = true

      [instances.party]
      plugin = "party-lights"
      group = "bedroom"
      members = ["light1", "light2", "light3"]

      \(routes)
      """
  }

  /// Each light's state as the simulator has it (its `lights` control command), described.
  static func lightStates(control: String) throws -> [String: String] {
    let answer = try sendControl(control, "lights")
    guard let json = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any] else {
      throw DemoError("the Hue simulator answered 'lights' with \(answer)")
    }
    var states: [String: String] = [:]
    for (id, light) in json {
      guard var state = (light as? [String: Any])?["state"] as? [String: Any] else { continue }
      // Show the color the light is in: hue and saturation, or color temperature.
      if state["colormode"] as? String == "ct" {
        state["hue"] = nil
        state["sat"] = nil
      } else {
        state["ct"] = nil
      }
      states[id] = describe(state: state)
    }
    return states
  }

  /// Waits until the simulator's lights are as they were before the party.
  static func waitUntilRestored(_ before: [String: String], events: HueEvents) throws {
    try events.waitForLights { $0 == before }
  }

  /// How many recorded commands had each outcome (accepted, dropped, rejected, invalid).
  static func outcomes(_ lines: [String]) -> [String: Int] {
    var counts: [String: Int] = [:]
    for line in lines {
      guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let outcome = json["outcome"] as? String
      else { continue }
      counts[outcome, default: 0] += 1
    }
    return counts
  }

  /// One accepted command of the simulator's record, in degrees and percent.
  static func describe(recordLine line: String) -> String? {
    guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
      json["outcome"] as? String == "accepted", let kind = json["kind"] as? String, let id = json["id"] as? String,
      let body = json["body"] as? [String: Any]
    else { return nil }
    return "\(kind) \(id) <- " + describe(state: body)
  }

  /// A v1 state or command body, in degrees and percent.
  static func describe(state body: [String: Any]) -> String {
    var parts: [String] = []
    if let on = body["on"] as? Bool { parts.append(on ? "on" : "off") }
    if let hue = (body["hue"] as? NSNumber)?.doubleValue { parts.append("hue \(Int((hue * 360 / 65535).rounded()))°") }
    if let sat = (body["sat"] as? NSNumber)?.doubleValue { parts.append("sat \(Int((sat * 100 / 254).rounded())) %") }
    if let bri = (body["bri"] as? NSNumber)?.doubleValue { parts.append("bri \(Int((bri * 100 / 254).rounded())) %") }
    if let ct = (body["ct"] as? NSNumber)?.intValue { parts.append("ct \(ct)") }
    return parts.joined(separator: ", ")
  }
}
