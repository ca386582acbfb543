import HueProtocol
import Testing

@Suite struct HueUnitsTests {
  @Test func brightnessPercentMapsOntoOneTo254AndClamps() {
    #expect(HueUnits.bri(percent: 100) == 254)
    #expect(HueUnits.bri(percent: 50) == 127)
    #expect(HueUnits.bri(percent: 0) == 1)
    #expect(HueUnits.bri(percent: -5) == 1)
    #expect(HueUnits.bri(percent: 250) == 254)
    #expect(HueUnits.bri(percent: .nan) == 1)
    #expect(HueUnits.percent(bri: 254) == 100)
    #expect(HueUnits.percent(bri: 0) == HueUnits.percent(bri: 1))
  }

  @Test func hueDegreesWrapIntoTheWheel() {
    #expect(HueUnits.hue(degrees: 0) == 0)
    #expect(HueUnits.hue(degrees: 360) == 0)
    #expect(HueUnits.hue(degrees: 15) == 2731)  // the party-lights step
    #expect(HueUnits.hue(degrees: 120) == 21845)
    #expect(HueUnits.hue(degrees: -90) == HueUnits.hue(degrees: 270))
    #expect(HueUnits.hue(degrees: 719.9) == HueUnits.hue(degrees: 359.9))
    #expect(HueUnits.hue(degrees: .infinity) == 0)
    #expect(HueUnits.degrees(hue: 65535) == 0)
    #expect(abs(HueUnits.degrees(hue: 46920) - 257.75) < 0.01)
    #expect(HueUnits.degrees(hue: 70000) == 0)
  }

  @Test func saturationColorTemperatureAndTransitionClamp() {
    #expect(HueUnits.sat(percent: 75) == 191)
    #expect(HueUnits.sat(percent: 100) == 254)
    #expect(HueUnits.sat(percent: 120) == 254)
    #expect(HueUnits.sat(percent: -1) == 0)
    #expect(HueUnits.ct(mired: 100) == 153)
    #expect(HueUnits.ct(mired: 366.4) == 366)
    #expect(HueUnits.ct(mired: 9000) == 500)
    #expect(HueUnits.transitionTime(milliseconds: 400) == 4)
    #expect(HueUnits.transitionTime(milliseconds: 1249) == 12)
    #expect(HueUnits.transitionTime(milliseconds: 0) == 0)
    #expect(HueUnits.transitionTime(milliseconds: .max) == 65535)
  }

  @Test func aChangeFollowedByANewerOneKeepsOnlyTheNewestColorMode() {
    let older = HueStateChange(on: true, bri: 10, hue: 100, sat: 200)
    let newer = HueStateChange(bri: 20, ct: 300)
    #expect(older.followed(by: newer) == HueStateChange(on: true, bri: 20, ct: 300))
    #expect(newer.followed(by: HueStateChange(hue: 5)) == HueStateChange(bri: 20, hue: 5))
    #expect(older.removing(newer) == HueStateChange(on: true))
    #expect(HueStateChange(bri: 3, transitionTime: 4).removing(HueStateChange(bri: 9)).isEmpty)
    #expect(HueStateChange(on: true, transitionTime: 4).json.text == #"{"on":true,"transitiontime":4}"#)
  }
}
