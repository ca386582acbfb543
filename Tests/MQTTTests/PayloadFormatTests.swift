import MQTTProtocol
import PatchbayPluginKit
import Testing

struct PayloadFormatTests {
  func format(_ entry: String) throws -> TopicMapping {
    try #require(try MQTTConfig(json: #"{"host":"h","topics":[{\#(entry)}]}"#).topics.first)
  }

  func decode(_ mapping: TopicMapping, _ payload: String) -> Result<Value, PayloadError> {
    Result { () throws(PayloadError) -> Value in try mapping.format.decode(Array(payload.utf8), as: mapping.type) }
  }

  @Test func plainBoolsUseTheConfiguredWordsBothWays() throws {
    let lamp = try format(
      #""name":"a","type":"bool","subscribe":"x","publish":"y","payload_on":"ON","payload_off":"OFF""#)
    #expect(try decode(lamp, "ON").get() == .bool(true))
    #expect(try decode(lamp, "off\n").get() == .bool(false))
    #expect(try decode(lamp, "true").get() == .bool(true))
    #expect(throws: PayloadError.self) { try decode(lamp, "maybe").get() }
    #expect(lamp.format.encode(.bool(true)) == Array("ON".utf8))
    #expect(lamp.format.encode(.bool(false)) == Array("OFF".utf8))
    let plain = try format(#""name":"a","type":"bool","publish":"y""#)
    #expect(plain.format.encode(.bool(true)) == Array("true".utf8))
  }

  @Test func numbersAreCheckedForRange() throws {
    let t = try format(#""name":"a","type":"number","subscribe":"x","min":-40,"max":60"#)
    #expect(try decode(t, " 21.5 ").get() == .number(21.5))
    #expect(try decode(t, "-40").get() == .number(-40))
    #expect(throws: PayloadError("61 is above the maximum 60")) { try decode(t, "61").get() }
    #expect(throws: PayloadError("-40.5 is below the minimum -40")) { try decode(t, "-40.5").get() }
    #expect(throws: PayloadError.self) { try decode(t, "nan").get() }
    #expect(throws: PayloadError.self) { try decode(t, "").get() }
    let n = try format(#""name":"a","type":"integer","subscribe":"x","max":10"#)
    #expect(try decode(n, "7").get() == .integer(7))
    #expect(try decode(n, "7.0").get() == .integer(7))
    #expect(throws: PayloadError.self) { try decode(n, "7.5").get() }
    #expect(throws: PayloadError.self) { try decode(n, "11").get() }
  }

  @Test func jsonPathsReadAndWriteNestedValues() throws {
    let t = try format(#""name":"a","type":"number","subscribe":"x","publish":"y","json_path":"climate.temperature""#)
    #expect(try decode(t, #"{"climate":{"temperature":19,"humidity":3}}"#).get() == .number(19))
    #expect(try decode(t, #"{"climate":{"temperature":"19.5"}}"#).get() == .number(19.5))
    #expect(throws: PayloadError("no value at JSON path 'climate.temperature'")) {
      try decode(t, #"{"climate":{}}"#).get()
    }
    #expect(throws: PayloadError("payload is not JSON")) { try decode(t, "{oops").get() }
    #expect(String(decoding: t.format.encode(.number(20.5)), as: UTF8.self) == #"{"climate":{"temperature":20.5}}"#)
    let state = try format(
      #""name":"a","type":"bool","subscribe":"x","publish":"y","json_path":"state","payload_on":"ON","payload_off":"OFF""#
    )
    #expect(try decode(state, #"{"state":"ON"}"#).get() == .bool(true))
    #expect(String(decoding: state.format.encode(.bool(false)), as: UTF8.self) == #"{"state":"OFF"}"#)
  }

  @Test func structuredTypesUseTheHubsJSONForms() throws {
    let light = try format(#""name":"a","type":"light","subscribe":"x","publish":"y""#)
    #expect(
      try decode(light, #"{"on":true,"brightness":50}"#).get() == .light(LightCommand(on: true, brightness: 50)))
    #expect(throws: PayloadError.self) { try decode(light, #"{"on":"yes"}"#).get() }
    let button = try format(#""name":"a","type":"button","subscribe":"x","publish":"y""#)
    #expect(try decode(button, "double_click").get() == .button(ButtonEvent(action: .doubleClick)))
    #expect(button.format.encode(.button(ButtonEvent(action: .hold))) == Array("hold".utf8))
    let text = try format(#""name":"a","type":"text","subscribe":"x""#)
    #expect(throws: PayloadError.self) { try text.format.decode([0xFF, 0xFE], as: .text) }
    #expect(throws: PayloadError.self) { try decode(text, String(repeating: "x", count: 5000)).get() }
  }

  @Test func triggersAndColors() throws {
    let bell = try format(#""name":"a","type":"trigger","subscribe":"x","publish":"y","trigger_payload":"RING""#)
    #expect(try decode(bell, "anything at all").get() == .trigger)
    #expect(bell.format.encode(.trigger) == Array("RING".utf8))
    let color = try format(#""name":"a","type":"color","subscribe":"x","publish":"y""#)
    let red = Value.color(HSBColor(hue: 0, saturation: 100, brightness: 50))
    #expect(try decode(color, #"{"hue":0,"saturation":100,"brightness":50}"#).get() == red)
    #expect(try decode(color, String(decoding: color.format.encode(red), as: UTF8.self)).get() == red)
    #expect(throws: PayloadError.self) { try decode(color, #"{"hue":"red"}"#).get() }
  }
}
