import Foundation
import PartyLightsProtocol
import PatchbayPluginKit
import PatchbayTestSupport
import Testing

/// Going back to the pre-party state, and keeping it across restarts.
struct RestorePlanTests {
  let red = HSBColor(hue: 0, saturation: 100, brightness: 40)

  @Test func aLightThatWasOnGetsItsStateInOneCommand() {
    let plan = RestorePlan(captured: LightCommand(on: true, brightness: 40, color: red), transitionMs: 400)
    #expect(plan.first == LightCommand(on: true, brightness: 40, color: red, transitionMs: 400))
    #expect(plan.then == nil)
  }

  @Test func aLightThatWasOffGetsItsColorBackThenTurnsOff() {
    let plan = RestorePlan(
      captured: LightCommand(on: false, brightness: 20, colorTemperature: 370), transitionMs: 0)
    #expect(plan.first == LightCommand(on: true, brightness: 20, colorTemperature: 370, transitionMs: 0))
    #expect(plan.then == LightCommand(on: false, transitionMs: 0))
  }

  @Test func appliedMeansWithinTheBridgesRounding() {
    let wanted = LightCommand(on: true, brightness: 40, color: HSBColor(hue: 359.5, saturation: 60, brightness: 40))
    let close = LightCommand(on: true, brightness: 40.4, color: HSBColor(hue: 0.3, saturation: 59.8, brightness: 40))
    #expect(RestorePlan.isApplied(wanted, in: close))
    let partyColor = LightCommand(on: true, brightness: 100, color: HSBColor(hue: 15, saturation: 75, brightness: 100))
    #expect(!RestorePlan.isApplied(wanted, in: partyColor))
    #expect(!RestorePlan.isApplied(LightCommand(colorTemperature: 300), in: partyColor))
  }

  @Test func theRecordSurvivesARoundTripOnDisk() throws {
    let directory = try TemporaryDirectory("party-record")
    let store = RecordStore(directory: directory.path + "/instances/party")
    #expect(try store.load() == PartyRecord())
    var record = PartyRecord()
    record.phase = .running
    record.captured = [
      "lamp1": StoredLight(LightCommand(on: false, brightness: 40, color: red)),
      "lamp2": StoredLight(LightCommand(on: true, brightness: 80, colorTemperature: 250)),
    ]
    record.anchorStep = 12
    record.anchorTime = 1_700_000_000.5
    record.lastRunInput = true
    try store.save(record)
    let loaded = try store.load()
    #expect(loaded == record)
    #expect(loaded.captured["lamp1"]?.light == LightCommand(on: false, brightness: 40, color: red))
  }
}
