import PartyLightsProtocol
import PatchbayPluginKit
import Testing

/// The planner alone: which color each target gets at step k, and how fast.
struct EffectPlanTests {
  var generator = SeededGenerator(seed: 7)

  func hues(_ commands: [LightCommand]) -> [Double] { commands.map { $0.color!.hue } }

  @Test func theDefaultsReproduceTheSeed() throws {
    let config = try PartyConfig(json: #"{"group": "living"}"#)
    let plan = config.plan
    #expect(plan.interval() == 1)
    #expect(plan.source.positionsPerCycle == 24)
    var previous: Int?
    var generator = generator
    for step in 0...24 {
      let position = plan.position(atStep: step, previous: previous, generator: &generator)
      previous = position
      let commands = plan.commands(atPosition: position, interval: plan.interval())
      #expect(commands.count == 1)
      let command = try #require(commands.first)
      #expect(command.on == true)
      #expect(command.brightness == 100)
      #expect(command.color == HSBColor(hue: Double(step * 15 % 360), saturation: 75, brightness: 100))
      // The fade lasts the whole step unless configured.
      #expect(command.transitionMs == 1000)
    }
  }

  @Test func backwardsStepsDownTheWheel() throws {
    let plan = try PartyConfig(json: #"{"group": "g", "direction": "backward", "step_degrees": 30, "start_hue": 10}"#)
      .plan
    var generator = generator
    let positions = (0..<4).map { plan.position(atStep: $0, previous: nil, generator: &generator) }
    #expect(positions.map { hues(plan.commands(atPosition: $0, interval: 1)).first! } == [10, 340, 310, 280])
  }

  @Test func eachLightIsOffsetByTheSpread() throws {
    let plan = try PartyConfig(json: #"{"lights": ["a", "b", "c"], "spread_degrees": 40, "saturation": 50}"#).plan
    #expect(hues(plan.commands(atPosition: 0, interval: 1)) == [0, 40, 80])
    #expect(hues(plan.commands(atPosition: 1, interval: 1)) == [15, 55, 95])
    #expect(hues(plan.commands(atPosition: 23, interval: 1)) == [345, 25, 65])
    #expect(plan.commands(atPosition: 5, interval: 1).allSatisfy { $0.color?.saturation == 50 })
  }

  @Test func aPaletteStepsOneEntryAtATimeAndSpreadsByEntries() throws {
    let plan = try PartyConfig(
      json:
        #"{"lights": ["a", "b"], "spread_degrees": 1, "palette": [0, 120, {"hue": 240, "saturation": 100, "brightness": 60}]}"#
    ).plan
    #expect(plan.source.positionsPerCycle == 3)
    let first = plan.commands(atPosition: 0, interval: 1)
    #expect(hues(first) == [0, 120])
    #expect(first[0].color?.saturation == 75)
    let third = plan.commands(atPosition: 2, interval: 1)
    #expect(hues(third) == [240, 0])
    #expect(third[0].brightness == 60)
    #expect(third[0].color?.saturation == 100)
    #expect(hues(plan.commands(atPosition: -1, interval: 1)) == [240, 0])
  }

  @Test func randomOrderNeverRepeatsTheLastColor() throws {
    let plan = try PartyConfig(json: #"{"group": "g", "order": "random", "palette": [0, 90, 180]}"#).plan
    var generator = generator
    var previous: Int?
    var seen: Set<Int> = []
    for step in 0..<200 {
      let position = plan.position(atStep: step, previous: previous, generator: &generator)
      #expect((0..<3).contains(position))
      #expect(position != previous)
      seen.insert(position)
      previous = position
    }
    #expect(seen == [0, 1, 2])
  }

  @Test func aGroupNeverStepsFasterThanTheGroupRate() throws {
    // 24 steps in 12 s would be 2 steps/s; the group rate allows 1.
    let plan = try PartyConfig(json: #"{"group": "g", "period_s": 12}"#).plan
    #expect(plan.exceedsRate())
    #expect(plan.interval() == 1)
    let warning = try #require(plan.rateWarning())
    #expect(warning.contains("asks for 2 steps/s"))
    #expect(warning.contains("running at 1 steps/s"))
    // A faster group rate lets it through.
    let faster = try PartyConfig(json: #"{"group": "g", "period_s": 12, "group_rate": 4}"#).plan
    #expect(faster.rateWarning() == nil)
    #expect(faster.interval() == 0.5)
  }

  @Test func lightsShareTheLightRate() throws {
    // 5 lights at 10 light commands/s: at most 2 steps/s.
    let plan = try PartyConfig(json: #"{"lights": ["a", "b", "c", "d", "e"], "bpm": 600}"#).plan
    #expect(plan.minimumInterval == 0.5)
    #expect(plan.interval() == 0.5)
    let warning = try #require(plan.rateWarning())
    #expect(warning.contains("shared by 5 lights"))
    let slower = try PartyConfig(json: #"{"lights": ["a", "b", "c", "d", "e"], "bpm": 60}"#).plan
    #expect(slower.rateWarning() == nil)
    #expect(slower.interval() == 1)
  }

  @Test func speedScalesTheIntervalWithinTheRate() throws {
    let plan = try PartyConfig(json: #"{"lights": ["a", "b"], "period_s": 48}"#).plan
    #expect(plan.interval() == 2)
    #expect(plan.interval(speed: 4) == 0.5)
    #expect(plan.interval(speed: 0.5) == 4)
    // Two lights at 10 commands/s: never below 0.2 s.
    #expect(plan.interval(speed: 100) == 0.2)
    #expect(plan.rateWarning(speed: 100) != nil)
    #expect(plan.rateWarning(speed: 4) == nil)
  }

  @Test func aConfiguredTransitionIsKept() throws {
    let config = try PartyConfig(
      json: #"{"group": "g", "transition_ms": 250, "duration_s": 30, "brightness": 40, "members": ["x", "y"]}"#)
    #expect(config.plan.commands(atPosition: 3, interval: 1).first?.transitionMs == 250)
    #expect(config.plan.commands(atPosition: 3, interval: 1).first?.brightness == 40)
    #expect(config.duration == 30)
    #expect(config.capturedTargets == ["g.x", "g.y"])
    #expect(config.effectTargets == ["g"])
    #expect(config.allTargets == ["g", "g.x", "g.y"])
  }
}

/// A deterministic generator, so a failing random-order test can be replayed.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
