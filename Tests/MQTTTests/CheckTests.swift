import Foundation
import PatchbayTestSupport
import Testing

/// `patchbay check` loads the plugin and reports each config mistake with its key.
@Suite(.serialized) struct CheckTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt-check") }

  func check(_ body: String) throws -> (status: Int32, output: String) {
    let config = try directory.write(
      "check-\(UUID().uuidString.prefix(6)).toml", "[instances.mqtt]\nplugin = \"mqtt\"\nhost = \"127.0.0.1\"\n" + body)
    return try runProgram(BuildProducts.executable("patchbay"), ["check", "--config", config])
  }

  @Test func badTopicsAreReportedWithTheirKey() throws {
    let valid = """
      [[instances.mqtt.topics]]
      name = "lamp"
      type = "bool"
      subscribe = "home/lamp"
      publish = "home/lamp/set"
      """
    let accepted = try check(valid)
    #expect(accepted.status == 0, "\(accepted.output)")
    let hash = try check(
      """
      [[instances.mqtt.topics]]
      name = "tele"
      type = "number"
      subscribe = "tele/#"
      each = ["kitchen/temperature", "hall"]
      """)
    #expect(hash.status == 0, "\(hash.output)")
    let mistakes: [(String, String)] = [
      (
        valid.replacingOccurrences(of: "home/lamp/set", with: "home/+/set"),
        "topics.0.publish 'home/+/set' has a wildcard"
      ),
      (valid.replacingOccurrences(of: "home/lamp/set", with: "home/#"), "topics.0.publish 'home/#' has a wildcard"),
      (
        valid.replacingOccurrences(of: "\"home/lamp\"", with: "\"home/#/x\""),
        "topics.0.subscribe 'home/#/x': # must be"
      ),
      (
        valid.replacingOccurrences(of: "\"home/lamp\"", with: "\"home/+\""),
        "topics.0.subscribe 'home/+' has a + wildcard"
      ),
      (
        valid.replacingOccurrences(of: "\"home/lamp\"", with: "\"home/#\""),
        "topics.0.subscribe 'home/#' has a # wildcard: list the topics under 'home/' that name ports in each"
      ),
      (
        valid.replacingOccurrences(of: "\"home/lamp\"", with: "\"home/+/#\""),
        "topics.0.subscribe 'home/+/#' combines + and #, but one wildcard names the ports: subscribe to 'home/#'"
      ),
      (valid.replacingOccurrences(of: "\"bool\"", with: "\"switch\""), "topics.0.type 'switch' is not a value type"),
      (
        valid.replacingOccurrences(of: "subscribe", with: "subscibe"),
        "unknown key 'topics.0.subscibe' (did you mean 'topics.0.subscribe'?)"
      ),
    ]
    for (body, expected) in mistakes {
      let result = try check(body)
      #expect(result.status != 0, "accepted:\n\(body)")
      #expect(result.output.contains(expected), "\(body)\n  gave: \(result.output)\n  expected: \(expected)")
    }
  }

  @Test func theShippedExamplesPass() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path
    for example in [
      "etc/examples/mqtt-topics.toml", "etc/examples/mqtt-zigbee2mqtt.toml", "etc/examples/mqtt-hub-to-hub.toml",
      "etc/plugins/mqtt.toml",
    ] {
      let result = try runProgram(BuildProducts.executable("patchbay"), ["check", "--config", root + "/" + example])
      #expect(result.status == 0, "\(example): \(result.output)")
    }
  }

  /// Device classes (per component), units and state classes against HA's documented lists,
  /// with did-you-mean; the mistake names the file and the key.
  @Test func homeAssistantVocabularyIsChecked() throws {
    func entity(_ lines: String) -> String {
      "[instances.mqtt.home_assistant]\n[[instances.mqtt.home_assistant.entities]]\nname = \"e\"\n" + lines
    }
    let valid = [
      "component = \"sensor\"\ndevice_class = \"humidity\"\nunit = \"%\"\nstate_class = \"measurement\"",
      "component = \"switch\"\ndevice_class = \"outlet\"",
      "component = \"binary_sensor\"\ndevice_class = \"door\"",
      "component = \"sensor\"\ndevice_class = \"data_rate\"\nunit = \"kbit/s\"",
    ]
    for lines in valid {
      let result = try check(entity(lines))
      #expect(result.status == 0, "\(lines): \(result.output)")
    }
    let mistakes: [(String, String)] = [
      (
        "component = \"sensor\"\ndevice_class = \"humidty\"",
        "home_assistant.entities.0.device_class 'humidty' is not a Home Assistant sensor device class (did you mean 'humidity'?)"
      ),
      (
        "component = \"binary_sensor\"\ndevice_class = \"humidity\"",
        "home_assistant.entities.0.device_class 'humidity' is not a Home Assistant binary_sensor device class"
      ),
      ("component = \"switch\"\ndevice_class = \"outlett\"", "(did you mean 'outlet'?)"),
      ("component = \"light\"\ndevice_class = \"outlet\"", "applies to sensor, binary_sensor and switch only"),
      (
        "component = \"sensor\"\nstate_class = \"measurment\"",
        "home_assistant.entities.0.state_class 'measurment' is not a state class (did you mean 'measurement'?)"
      ),
      ("component = \"switch\"\nstate_class = \"measurement\"", "state_class applies to sensor only"),
      (
        "component = \"sensor\"\ndevice_class = \"temperature\"\nunit = \"°c\"",
        "home_assistant.entities.0.unit '°c' is not a unit HA takes for temperature (did you mean '°C'?)"
      ),
    ]
    for (lines, expected) in mistakes {
      let result = try check(entity(lines))
      #expect(result.status != 0, "accepted:\n\(lines)")
      #expect(result.output.contains(expected), "\(lines)\n  gave: \(result.output)\n  expected: \(expected)")
      #expect(result.output.contains(".toml"), "names the file: \(result.output)")
    }
  }

  /// Every wrong device class of an instance is reported, each on its own line with the file,
  /// its key and what would be right (issue 45.5: only the first was).
  @Test func everyWrongDeviceClassIsReported() throws {
    let result = try check(
      """
      [instances.mqtt.home_assistant]

      [[instances.mqtt.home_assistant.entities]]
      name = "hum"
      component = "sensor"
      device_class = "humidty"

      [[instances.mqtt.home_assistant.entities]]
      name = "ok"
      component = "sensor"
      device_class = "temperature"

      [[instances.mqtt.home_assistant.entities]]
      name = "plug"
      component = "switch"
      device_class = "outlett"

      [[instances.mqtt.home_assistant.entities]]
      name = "door"
      component = "binary_sensor"
      device_class = "humidity"
      """)
    #expect(result.status != 0, "\(result.output)")
    let expected = [
      "home_assistant.entities.0.device_class 'humidty' is not a Home Assistant sensor device class (did you mean 'humidity'?)",
      "home_assistant.entities.2.device_class 'outlett' is not a Home Assistant switch device class (did you mean 'outlet'?)",
      "home_assistant.entities.3.device_class 'humidity' is not a Home Assistant binary_sensor device class",
    ]
    let lines = result.output.split(separator: "\n").map(String.init)
    for problem in expected {
      let line = lines.first { $0.contains(problem) }
      #expect(line != nil, "\(problem)\n  gave: \(result.output)")
      #expect(line?.contains(".toml") == true && line?.contains("instances.mqtt") == true, "\(line ?? "")")
    }
    #expect(!result.output.contains("entities.1."), "\(result.output)")
  }

  /// An explicit client id or base topic is valid but would be the same on a second hub: check
  /// accepts the config and warns, naming the file, the instance and the way out.
  @Test func explicitIdentityWithoutTheHubIDIsWarnedOf() throws {
    let defaults = try check("")
    #expect(defaults.status == 0, "\(defaults.output)")
    #expect(!defaults.output.contains("warning:"), "\(defaults.output)")
    let explicit = try check("client_id = \"kitchen-hub\"\nbase_topic = \"home/hub\"\n")
    print(explicit.output)
    #expect(explicit.status == 0, "\(explicit.output)")
    #expect(explicit.output.contains("warning:"), "\(explicit.output)")
    #expect(explicit.output.contains("instances.mqtt"), "\(explicit.output)")
    #expect(explicit.output.contains("client_id 'kitchen-hub' is used as written"), "\(explicit.output)")
    #expect(explicit.output.contains("base_topic 'home/hub' is used as written"), "\(explicit.output)")
    #expect(explicit.output.contains("OK (1 instances"), "\(explicit.output)")
  }
}
