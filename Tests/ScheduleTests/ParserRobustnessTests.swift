import PatchbayTestSupport
import ScheduleProtocol
import Testing

/// Whatever text a config holds, the parsers answer with a value or an error, never a trap
/// (the plugin runs them in `create`, so a trap would take `patchbay check` down with it).
struct ParserRobustnessTests {

  static let pieces = [
    "*", "/", "-", ",", " ", "0", "1", "7", "9", "59", "60", "99999999999999999999", "-5", "mon", "FRI", "jan", "x",
    "T", ":", "Z", "+", "2026", "12", "31", "min", "h", "d", "s", "\u{00e9}", "\t", "", "999999999",
  ]

  @Test func randomTextNeverTraps() {
    var generator = SplitMix64(seed: 42)
    var accepted = 0
    for _ in 0..<20_000 {
      let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
        Self.pieces.randomElement(using: &generator)!
      }.joined()
      if (try? CronExpression(text)) != nil { accepted += 1 }
      _ = try? DurationText.parse(text, allowNegative: true)
      _ = try? OneShotTime(text)
    }
    #expect(accepted >= 0)
  }

  @Test func hugeNumbersAreRefusedNotOverflowed() {
    #expect(throws: CronError.self) { try CronExpression("*/99999999999999999999 * * * *") }
    #expect(throws: CronError.self) { try CronExpression("99999999999999999999 * * * *") }
    #expect(throws: DurationError.self) {
      try DurationText.parse(String(repeating: "999999999 d ", count: 200), allowNegative: false)
    }
  }
}
