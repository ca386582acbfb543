import Foundation
import PatchbayValues
import Testing

/// The Foundation-free JSON reader gives what `JSONDecoder` gave for every input the hub and
/// the plugin host meet, and refuses what JSON refuses.
@Suite struct JSONParserTests {
  /// What the reader replaced: JSONValue decoded by Foundation's JSONDecoder.
  func foundation(_ text: String) -> JSONValue? {
    try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
  }

  @Test(arguments: [
    "0", "-7", "42", "5.0", "1e3", "9223372036854775807", "-9223372036854775808", "0.5", "-1.25e3", "1E-2", "true",
    "false",
    "null", #""""#, #""plain""#, #""esc \" \\ \/ \b \f \n \r \t""#, #""\u00e9\u20ac\ud83d\ude00""#, "[]", "{}",
    "[1, 2.5, \"x\", [true, null], {}]", #"{"b": 1, "a": {"d": [1, {"e": "f"}], "c": false}}"#,
    #"  { "port" : 5551 , "buttons" : [ { "name" : "bedside" } ] }  "#, #"{"on":true,"color":{"hue":120}}"#,
    #""ünïcödé text""#,
  ])
  func agreesWithFoundation(_ text: String) throws {
    let ours = try #require(JSONValue.parse(text), "refused \(text)")
    #expect(ours == foundation(text), "\(text)")
  }

  @Test(arguments: [
    "", "tru", "[1,]", "{\"a\":1,}", "{a:1}", "01", "1.", ".5", "-", "1e", "\"open", "\"bad \\x escape\"",
    "\"\\ud83d alone\"", "[1] 2", "{\"a\" 1}", "\"tab\tinside\"", "NaN", "1e999",
  ])
  func refusesWhatJSONRefuses(_ text: String) {
    #expect(JSONValue.parse(text) == nil, "accepted \(text)")
  }

  @Test func nestingIsBounded() {
    #expect(JSONValue.parse(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)) != nil)
    #expect(JSONValue.parse(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)) == nil)
  }

  @Test func controlCharactersAreWrittenBackEscaped() {
    #expect(JSONValue.string("a\u{01}b").description == #""a\u0001b""#)
    #expect(JSONValue.parse(JSONValue.string("a\u{01}b\u{1f}").description) == .string("a\u{01}b\u{1f}"))
  }
}
