import Foundation
import MQTTProtocol
import PatchbayPluginKit
import Testing

/// Config mistakes are create errors that name the key (what `patchbay check` shows).
struct ConfigTests {
  func error(_ json: String) -> String {
    do {
      _ = try MQTTConfig(json: json)
      return "accepted"
    } catch {
      return "\(error)"
    }
  }

  func topic(_ body: String) -> String {
    #"{"host":"127.0.0.1","topics":[{\#(body)}]}"#
  }

  @Test func aValidConfigDeclaresItsPorts() throws {
    let config = try MQTTConfig(
      json: #"""
        {"host":"broker.local","protocol":"5","username":"hub","password_file":"/etc/pw",
         "topics":[
           {"name":"lamp","type":"bool","subscribe":"a/state","publish":"a/set","payload_on":"ON","payload_off":"OFF"},
           {"name":"t","type":"number","subscribe":"rooms/+/t","each":["kitchen","hall"]},
           {"name":"go","type":"trigger","publish":"x/go"}],
         "zigbee2mqtt":[{"device":"Living Bulb","kind":"light"},{"device":"remote1","kind":"remote","name":"bedside"}]}
        """#)
    #expect(config.broker.port == 1883)
    #expect(config.broker.protocolVersion == .v5)
    #expect(config.topics[0].outputPortNames == ["lamp"])
    #expect(config.topics[0].inputPortName == "lamp.set")
    #expect(config.topics[0].kind == .state && config.topics[0].retain)
    #expect(config.topics[1].outputPortNames == ["t.kitchen", "t.hall"])
    #expect(config.topics[2].inputPortName == "go")
    #expect(config.topics[2].kind == .event && !config.topics[2].retain)
    #expect(config.zigbee2mqtt[0].name == "living_bulb")
    #expect(config.zigbee2mqtt[0].setTopic(base: "zigbee2mqtt") == "zigbee2mqtt/Living Bulb/set")
    #expect(config.zigbee2mqtt[1].actionOutput == "bedside.action")
    #expect(config.broker.clientID(instance: "mqtt") == "patchbay-mqtt")
  }

  @Test func mistakesNameTheirKey() {
    let cases: [(String, String)] = [
      (#"{"port":1883}"#, "missing required key 'host'"),
      (#"{"host":"h","hots":"x"}"#, "unknown key 'hots'"),
      (#"{"host":"h","protocol":"4"}"#, "protocol '4' must be \"3.1.1\" or \"5\""),
      (#"{"host":"h","password_file":"/p"}"#, "password_file needs username"),
      (#"{"host":"h","tls":{"cert_file":"c"}}"#, "tls.ca_file (or ca_path) is needed"),
      (topic(#""name":"a","type":"bool","publish":"x/+/y""#), "topics.0.publish 'x/+/y' has a wildcard"),
      (topic(#""name":"a","type":"bool","publish":"x/#""#), "topics.0.publish 'x/#' has a wildcard"),
      (
        topic(#""name":"a","type":"bool","subscribe":"x/#/y""#),
        "topics.0.subscribe 'x/#/y': # must be a whole level and the last one"
      ),
      (topic(#""name":"a","type":"bool","subscribe":"x/a+""#), "topics.0.subscribe 'x/a+': + must be a whole level"),
      (
        topic(#""name":"a","type":"bool","subscribe":"x/+""#),
        "topics.0.subscribe 'x/+' has a + wildcard: list the levels"
      ),
      (
        topic(#""name":"a","type":"bool","subscribe":"x/#""#),
        "topics.0.subscribe 'x/#' has a # wildcard: list the topics under 'x/' that name ports in each"
      ),
      (topic(#""name":"a","type":"bool","subscribe":"""#), "topics.0.subscribe must not be empty"),
      (topic(#""name":"a","type":"bool","subscribe":"$SYS/x""#), "topics.0.subscribe '$SYS/x' starts with $"),
      (
        topic(#""name":"a","type":"boool","subscribe":"x""#),
        "topics.0.type 'boool' is not a value type (did you mean 'bool'?)"
      ),
      (topic(#""name":"a","type":"bool","kind":"status","subscribe":"x""#), "topics.0.kind 'status' must be"),
      (topic(#""name":"a","type":"bool""#), "topics.0.subscribe or publish is needed"),
      (topic(#""name":"A b","type":"bool","subscribe":"x""#), "topics.0.name 'A b' must be 1 to 64 of a-z"),
      (
        topic(#""name":"a","type":"bool","subscribe":"x","jsonpath":"a""#),
        "unknown key 'topics.0.jsonpath' (did you mean 'topics.0.json_path'?)"
      ),
      (
        topic(#""name":"a","type":"bool","subscribe":"x","json_path":"a..b""#), "topics.0.json_path 'a..b' must be keys"
      ),
      (
        topic(#""name":"a","type":"bool","subscribe":"x","min":1"#),
        "topics.0.min and max apply to integer and number ports only"
      ),
      (topic(#""name":"a","type":"bool","subscribe":"x","qos":3"#), "topics.0.qos must be 0, 1 or 2"),
      (
        #"{"host":"h","topics":[{"name":"a","type":"bool","subscribe":"x"},{"name":"a","type":"bool","subscribe":"y"}]}"#,
        "port 'a' is declared twice"
      ),
      (
        #"{"host":"h","zigbee2mqtt":[{"device":"bulb","kind":"switch"}]}"#,
        "zigbee2mqtt.0.kind 'switch' must be \"light\" or \"remote\""
      ),
      (#"{"host":"h","zigbee2mqtt":[{"device":"a/+","kind":"light"}]}"#, "zigbee2mqtt.0.device 'a/+' has a wildcard"),
    ]
    for (json, expected) in cases {
      let message = error(json)
      #expect(message.contains(expected), "\(json)\n  gave: \(message)\n  expected: \(expected)")
    }
  }

  /// `#` and `+` subscriptions: the config says which topics get a port, and every way of
  /// getting that wrong is refused with the key and what to write instead.
  @Test func wildcardSubscriptionsNameTheirPortsInEach() throws {
    let config = try MQTTConfig(
      json: #"""
        {"host":"h","topics":[
          {"name":"t","type":"number","subscribe":"sensors/#","each":["kitchen/temperature","hall"]},
          {"name":"all","type":"text","subscribe":"#","each":["a/b/c"]},
          {"name":"r","type":"number","subscribe":"rooms/+/t","each":["kitchen"]}]}
        """#)
    #expect(config.topics[0].wildcard == .rest)
    #expect(config.topics[0].outputPortNames == ["t.kitchen.temperature", "t.hall"])
    #expect(config.topics[1].outputPortNames == ["all.a.b.c"])
    #expect(config.topics[2].wildcard == .level)
    #expect(TopicWildcard.rest.topic(for: "kitchen/temperature", filter: "sensors/#") == "sensors/kitchen/temperature")
    #expect(TopicWildcard.rest.topic(for: "a/b", filter: "#") == "a/b")
    #expect(TopicWildcard.level.topic(for: "kitchen", filter: "rooms/+/t") == "rooms/kitchen/t")

    let cases: [(String, String)] = [
      (
        topic(#""name":"a","type":"bool","subscribe":"x/#/y""#),
        "topics.0.subscribe 'x/#/y': # must be a whole level and the last one (for one level use +: 'x/+/y')"
      ),
      (topic(#""name":"a","type":"bool","subscribe":"x/a#""#), "(did you mean 'x/a/#'?)"),
      (topic(#""name":"a","type":"bool","subscribe":"x/a+/b""#), "+ must be a whole level (did you mean 'x/+/b'?)"),
      (
        topic(#""name":"a","type":"bool","subscribe":"a/+/b/#","each":["x"]"#),
        "topics.0.subscribe 'a/+/b/#' combines + and #, but one wildcard names the ports: subscribe to 'a/#'"
      ),
      (
        topic(#""name":"a","type":"bool","subscribe":"a/+/+","each":["x"]"#),
        "topics.0.subscribe 'a/+/+' has 2 + levels, but one wildcard names the ports: keep one +, or subscribe to 'a/#'"
      ),
      (
        topic(##""name":"a","type":"bool","subscribe":"#""##),
        "topics.0.subscribe '#' has a # wildcard: list the topics that name ports in each"
      ),
      (
        topic(#""name":"t","type":"number","subscribe":"rooms/+/t","each":["kitchen","up/stairs"]"#),
        "topics.0.each.1 'up/stairs' must be one topic level (the + of 'rooms/+/t'); for deeper topics subscribe to 'rooms/#' instead"
      ),
      (
        topic(#""name":"t","type":"number","subscribe":"s/#","each":["a//b"]"#),
        "topics.0.each.0 'a//b' has an empty level"
      ),
      (
        topic(#""name":"t","type":"number","subscribe":"s/#","each":["a/+"]"#),
        "topics.0.each.0 'a/+' has a wildcard"
      ),
      (topic(#""name":"t","type":"number","subscribe":"s/#","each":[""]"#), "topics.0.each.0 must not be empty"),
      (
        topic(#""name":"t","type":"number","subscribe":"s/#","each":["Kitchen/temp"]"#),
        "topics.0.each.0 'Kitchen/temp' would name port 't.Kitchen.temp', but port names are 1 to 64 of a-z, 0-9, _ and .; give that topic a [[topics]] entry of its own (subscribe = \"s/Kitchen/temp\", and a name)"
      ),
      (
        topic(#""name":"t","type":"number","subscribe":"s/#","each":["a/b","a.b"]"#),
        "topics.0.each.1 'a.b' names port 't.a.b' again (each.0 'a/b' names it already)"
      ),
      (
        topic(#""name":"t","type":"number","subscribe":"s/x","each":["a"]"#),
        "topics.0.each needs a wildcard in subscribe: a + level or a final #"
      ),
      (
        topic(#""name":"t","type":"number","subscribe":"s/#","publish":"s/set","each":["a"]"#),
        "topics.0.publish cannot be combined with each"
      ),
      (
        #"{"host":"h","topics":[{"name":"t","type":"number","subscribe":"s/#","each":["a/b"]},{"name":"t.a.b","type":"bool","subscribe":"y"}]}"#,
        "port 't.a.b' is declared twice"
      ),
    ]
    for (json, expected) in cases {
      let message = error(json)
      #expect(message.contains(expected), "\(json)\n  gave: \(message)\n  expected: \(expected)")
    }
  }

  /// Plugins/mqtt/Fuzz/findings/topic-*: FILTER and TOPIC on two lines; the port a topic picks
  /// is the one declared for exactly that topic (a '/#' once lost its empty first level).
  @Test func theFuzzerTopicFindingsDeclareTheirOwnTopic() throws {
    let findings = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Plugins/mqtt/Fuzz/findings")
    let names = try FileManager.default.contentsOfDirectory(atPath: findings.path).filter { $0.hasPrefix("topic-") }
    #expect(!names.isEmpty)
    for name in names {
      let text = try String(decoding: Data(contentsOf: findings.appendingPathComponent(name)), as: UTF8.self)
      let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
      let key = try #require(TopicFilter.portKey(parts[1], filter: parts[0]), "\(name)")
      #expect(TopicWildcard.rest.topic(for: key, filter: parts[0]) == parts[1], "\(name)")
    }
    #expect(TopicWildcard.rest.topic(for: "x", filter: "/#") == "/x")
    #expect(TopicWildcard.rest.topic(for: "x/y", filter: "a//#") == "a//x/y")
  }

  @Test func portKeysPickThePortOfAReceivedTopic() {
    #expect(TopicFilter.portKey("rooms/kitchen/t", filter: "rooms/+/t") == "kitchen")
    #expect(TopicFilter.portKey("sensors/kitchen/temperature", filter: "sensors/#") == "kitchen/temperature")
    #expect(TopicFilter.portKey("sensors/hall", filter: "sensors/#") == "hall")
    #expect(TopicFilter.portKey("sensors", filter: "sensors/#") == "")
    #expect(TopicFilter.portKey("a/b", filter: "#") == "a/b")
    #expect(TopicFilter.portKey("home/lamp", filter: "home/lamp") == "")
    #expect(TopicFilter.portKey("other/kitchen", filter: "sensors/#") == nil)
    #expect(TopicFilter.portKey("$SYS/broker/uptime", filter: "#") == nil)
    #expect(TopicFilter.portKey("rooms/kitchen/t/x", filter: "rooms/+/t") == nil)
  }

  @Test func topicFiltersMatchLikeABroker() {
    #expect(TopicFilter.matches("a/b/c", filter: "a/+/c"))
    #expect(TopicFilter.matches("a/b/c", filter: "a/#"))
    #expect(TopicFilter.matches("a", filter: "a/#"))
    #expect(!TopicFilter.matches("a/b", filter: "a/+/c"))
    #expect(!TopicFilter.matches("a/b/c/d", filter: "a/+/c"))
    #expect(!TopicFilter.matches("$SYS/x", filter: "#"))
    #expect(TopicFilter.wildcardLevels("rooms/kitchen/t", filter: "rooms/+/t") == ["kitchen"])
    #expect(TopicFilter.wildcardLevels("rooms//t", filter: "rooms/+/t") == [""])
  }
}
