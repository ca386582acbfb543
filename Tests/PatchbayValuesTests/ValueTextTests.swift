import PatchbayValues
import Testing

@Suite struct ValueTextTests {
  @Test func parsesCommandLineForms() throws {
    #expect(try Value.parse("true", as: .bool) == .bool(true))
    #expect(try Value.parse("off", as: .bool) == .bool(false))
    #expect(try Value.parse("42", as: .integer) == .integer(42))
    #expect(try Value.parse("0.5", as: .number) == .number(0.5))
    #expect(try Value.parse("hello world", as: .text) == .text("hello world"))
    #expect(try Value.parse("double_click", as: .button) == .button(ButtonEvent(action: .doubleClick)))
    #expect(
      try Value.parse(#"{"on":true,"color":{"hue":120,"saturation":75}}"#, as: .light)
        == .light(LightCommand(on: true, color: HSBColor(hue: 120, saturation: 75, brightness: 100))))
  }

  @Test func refusesWrongTypesWithExamples() {
    #expect(throws: ValueParseError.self) { try Value.parse("1", as: .bool) }
    #expect(throws: ValueParseError.self) { try Value.parse("true", as: .integer) }
    #expect(throws: ValueParseError.self) { try Value.parse("wiggle", as: .button) }
    #expect(throws: ValueParseError.self) { try Value.parse(#"{"on":true,"dim":3}"#, as: .light) }
  }

  @Test func descriptionReadsBack() throws {
    let values: [Value] = [
      .bool(false), .integer(-3), .number(2.25), .text("quote \" and \\"), .button(ButtonEvent(action: .hold)),
      .color(HSBColor(hue: 10, saturation: 20, brightness: 30)), .light(LightCommand(on: false, transitionMs: 400)),
    ]
    for value in values {
      #expect(try Value.parse(value.description, as: value.type) == value)
    }
  }
}
