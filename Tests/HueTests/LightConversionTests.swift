import HueProtocol
import PatchbayPluginKit
import Testing

@testable import HuePlugin

@Suite struct LightConversionTests {
  @Test func aHubCommandBecomesAClampedBridgeChange() {
    let command = LightCommand(
      on: true, brightness: 100, color: HSBColor(hue: 480, saturation: 75, brightness: 10), colorTemperature: 250,
      transitionMs: 1000)
    #expect(
      LightConversion.change(command) == HueStateChange(on: true, bri: 254, hue: 21845, sat: 191, transitionTime: 10))
    #expect(LightConversion.change(LightCommand(colorTemperature: 90)) == HueStateChange(ct: 153))
    #expect(LightConversion.change(LightCommand(brightness: -3)) == HueStateChange(bri: 1))
  }

  @Test func aLightsStateRestoresTheSameBridgeValues() {
    for state in [
      HueLightState(on: true, bri: 200, hue: 46920, sat: 254, ct: 300, colorMode: .hueSaturation),
      HueLightState(on: false, bri: 17, hue: 10, sat: 3, ct: 454, colorMode: .colorTemperature),
      HueLightState(on: true, bri: 1, hue: 65535, sat: 0, colorMode: .xy),
    ] {
      let restored = LightConversion.change(LightConversion.command(state))
      #expect(restored.on == state.on)
      #expect(restored.bri == state.bri)
      if state.colorMode == .colorTemperature {
        #expect(restored.ct == state.ct && restored.hue == nil)
      } else {
        #expect(restored.sat == state.sat)
        #expect(
          HueUnits.degrees(hue: restored.hue ?? -1) == HueUnits.degrees(hue: state.hue ?? -2) || state.hue == 65535)
      }
    }
  }

  @Test func theAggregateAveragesTheMembersThatAreOn() {
    let red1 = HueLightState(on: true, bri: 254, hue: HueUnits.hue(degrees: 350), sat: 254, colorMode: .hueSaturation)
    let red2 = HueLightState(on: true, bri: 127, hue: HueUnits.hue(degrees: 10), sat: 127, colorMode: .hueSaturation)
    let off = HueLightState(on: false, bri: 1, hue: 30000, sat: 0, colorMode: .hueSaturation)
    let aggregate = LightConversion.aggregate([red1, red2, off])
    #expect(aggregate.on == true)
    #expect(abs((aggregate.brightness ?? 0) - 75) < 0.1)
    let hue = aggregate.color?.hue ?? 180
    #expect(hue < 0.1 || hue > 359.9)
    #expect(abs((aggregate.color?.saturation ?? 0) - 75) < 0.1)

    let allOff = LightConversion.aggregate([off, HueLightState(on: false, bri: 254, colorMode: nil)])
    #expect(allOff.on == false)
    #expect(abs((allOff.brightness ?? 0) - 50.2) < 0.1)

    var unreachable = red1
    unreachable.reachable = false
    #expect(LightConversion.aggregate([unreachable, off]).on == false)
  }

  @Test func switchingOffLightsThatAreOffSendsOnlyOn() {
    let off = HueLightState(on: false, bri: 5)
    let change = HueStateChange(on: false, bri: 100, hue: 3, transitionTime: 2)
    #expect(HueDriver.dropSettingsOfOffLights(change, [off, off]) == HueStateChange(on: false, transitionTime: 2))
    #expect(HueDriver.dropSettingsOfOffLights(change, [off, HueLightState(on: true)]) == change)
    #expect(HueDriver.dropSettingsOfOffLights(change, [off, nil]) == change)
  }
}
