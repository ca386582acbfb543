// libFuzzer target for the mqtt plugin's payload decoders: any bytes a broker delivers must
// become a value or a PayloadError, never a crash. Fed through every decoder the router uses:
// plain and JSON formats (whole document, value paths, bool words, min/max) for every value
// type, the hub-to-hub envelope, Zigbee2MQTT light reports and remote actions; and, read as
// "FILTER\nTOPIC", the topic matching that picks a port.
// What is read must be a value the hub can carry (it survives its own JSON form) and must read
// the same again after the plugin writes it back. Built and run by run-fuzz next to this file.
import Glibc
import PatchbayValues

/// `precondition` with its message in an optimized build too, in the words fuzz_report keeps.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  guard !condition else { return }
  fputs("Assertion failed: \(message())\n", stderr)
  abort()
}

/// The formats a `[[topics]]` entry can configure.
let formats: [PayloadFormat] = {
  let plain = PayloadFormat()
  var words = PayloadFormat()
  words.payloadOn = "ON"
  words.payloadOff = "OFF"
  words.customBoolWords = true
  words.minimum = -40
  words.maximum = 60
  var whole = PayloadFormat()
  whole.wholeJSON = true
  var path = PayloadFormat()
  path.jsonPath = JSONPath("climate.temperature")
  var wordsAtPath = words
  wordsAtPath.jsonPath = JSONPath("state")
  return [plain, words, whole, path, wordsAtPath]
}()

/// Values compared as the hub shows them, in JSON: a light's color carries no brightness of
/// its own there (the light's `brightness` is the one that counts).
func same(_ a: Value?, _ b: Value) -> Bool { a?.json.description == b.json.description }

/// A value the hub can route: its JSON text is valid JSON that reads back as the same value.
func checkHubValue(_ value: Value, _ what: @autoclosure () -> String) {
  let text = value.json.description
  guard let json = JSONValue.parse(text) else { return check(false, "\(what()): \(value) writes invalid JSON \(text)") }
  let again = try? Value.fromJSON(json, as: value.type)
  check(same(again, value), "\(what()): \(value) reads back as \(String(describing: again))")
  if case .text(let text) = value {
    check(text.utf8.count <= Value.maximumTextBytes, "\(what()): text of \(text.utf8.count) bytes")
  }
}

func fuzzFormats(_ bytes: [UInt8]) {
  for (index, format) in formats.enumerated() {
    for type in ValueType.allCases {
      guard let value = try? format.decode(bytes, as: type) else { continue }
      let what = "format \(index) as \(type.name)"
      check(value.type == type, "\(what): decoded a \(value.type.name)")
      checkHubValue(value, what)
      if case .integer(let integer) = value, let minimum = format.minimum, let maximum = format.maximum {
        check((minimum...maximum).contains(Double(integer)), "\(what): \(integer) outside min/max")
      }
      if case .number(let number) = value, let minimum = format.minimum, let maximum = format.maximum {
        check((minimum...maximum).contains(number), "\(what): \(number) outside min/max")
      }
      // Published by this plugin and read by another instance with the same mapping.
      let written = format.encode(value)
      let again = try? format.decode(written, as: type)
      check(same(again, value), "\(what): \(value) written as \(written) reads back as \(String(describing: again))")
    }
  }
}

func fuzzEnvelope(_ bytes: [UInt8]) {
  for type in ValueType.allCases {
    guard let envelope = try? ShareEnvelope(payload: bytes, expected: type) else { continue }
    check(envelope.value.type == type && envelope.type == type, "envelope as \(type.name): \(envelope)")
    checkHubValue(envelope.value, "envelope as \(type.name)")
    let again = try? ShareEnvelope(payload: Array(envelope.json.description.utf8), expected: type)
    check(
      again?.json.description == envelope.json.description,
      "envelope \(envelope) reads back as \(String(describing: again))")
  }
}

func fuzzZigbee(_ bytes: [UInt8]) {
  if let light = try? Zigbee2MQTTLight.command(fromPayload: bytes) {
    checkHubValue(.light(light), "Zigbee2MQTT light")
    if let brightness = light.brightness {
      check((0...100).contains(brightness), "Zigbee2MQTT brightness \(brightness)")
    }
    if let color = light.color {
      check(
        (0..<360).contains(color.hue) && (0...100).contains(color.saturation), "Zigbee2MQTT color \(color)")
    }
    if let mired = light.colorTemperature {
      check(Zigbee2MQTTLight.miredRange.contains(mired), "Zigbee2MQTT color_temp \(mired)")
    }
    // The same light commanded back: a /set payload Zigbee2MQTT can read.
    let set = Zigbee2MQTTLight.setPayload(light).description
    check(JSONValue.parse(set) != nil, "Zigbee2MQTT /set payload \(set) is not JSON")
  }
  if let word = try? Zigbee2MQTTRemote.action(fromPayload: bytes) {
    check(!word.isEmpty, "Zigbee2MQTT remote: an empty action passed")
    _ = Zigbee2MQTTRemote.buttonAction(word)
  }
}

func fuzzTopics(_ bytes: [UInt8]) {
  let text = String(decoding: bytes, as: UTF8.self)
  let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
  guard parts.count == 2 else { return }
  let filter = String(parts[0])
  let topic = String(parts[1])
  _ = TopicFilter.problemAsTopicName(topic)
  guard TopicFilter.problemAsFilter(filter) == nil else { return }
  let key = TopicFilter.portKey(topic, filter: filter)
  check(
    (key != nil) == TopicFilter.matches(topic, filter: filter),
    "'\(topic)' under '\(filter)': key \(String(describing: key))")
  guard case .success(let wildcard?) = TopicWildcard.of(filter), let key, !key.isEmpty,
    wildcard.problem(entry: key, filter: filter) == nil
  else { return }
  // The port a message picks is declared for exactly that topic.
  let declared = wildcard.topic(for: key, filter: filter)
  check(declared == topic, "'\(topic)' under '\(filter)' picks '\(key)', declared for '\(declared)'")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPayload(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  fuzzFormats(bytes)
  fuzzEnvelope(bytes)
  fuzzZigbee(bytes)
  fuzzTopics(bytes)
  return 0
}
