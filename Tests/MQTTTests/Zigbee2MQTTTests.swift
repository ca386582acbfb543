import MQTTMapping
import PatchbayPluginKit
import Testing

struct Zigbee2MQTTTests {
  @Test func hubCommandsBecomeSetPayloads() {
    let command = LightCommand(
      on: true, brightness: 80, color: HSBColor(hue: 120, saturation: 100, brightness: 80), transitionMs: 1500)
    #expect(
      Zigbee2MQTTLight.setPayload(command).description
        == #"{"state":"ON","brightness":203,"color":{"hue":120,"saturation":100},"transition":1.5}"#)
    #expect(
      Zigbee2MQTTLight.setPayload(LightCommand(on: false, colorTemperature: 370)).description
        == #"{"state":"OFF","color_temp":370}"#)
    #expect(Zigbee2MQTTLight.setPayload(LightCommand(brightness: 0)).description == #"{"brightness":0}"#)
    #expect(Zigbee2MQTTLight.setPayload(LightCommand(brightness: 100)).description == #"{"brightness":254}"#)
  }

  @Test func stateReportsBecomeLightValues() throws {
    let hs = try #require(
      JSONValue.parse(
        #"{"state":"ON","brightness":254,"color_mode":"hs","color":{"hue":30,"saturation":75},"color_temp":370,"linkquality":120}"#
      ))
    let light = try Zigbee2MQTTLight.command(fromState: hs)
    #expect(light.on == true && light.brightness == 100)
    #expect(light.color?.hue == 30 && light.color?.saturation == 75 && light.colorTemperature == nil)
    let ct = try #require(
      JSONValue.parse(#"{"state":"OFF","brightness":127,"color_mode":"color_temp","color_temp":300}"#))
    let warm = try Zigbee2MQTTLight.command(fromState: ct)
    #expect(warm.on == false && warm.colorTemperature == 300 && warm.color == nil)
    #expect(abs((warm.brightness ?? 0) - 50) < 0.01)
    // A round trip keeps the brightness level.
    #expect(Zigbee2MQTTLight.brightnessLevel(percent: warm.brightness ?? 0) == 127)
    for bad in [#"{"state":"MAYBE"}"#, #"{"brightness":300}"#, #"[1]"#, #"{"color":{"hue":400,"saturation":5}}"#] {
      #expect(throws: PayloadError.self, "\(bad)") { try Zigbee2MQTTLight.command(fromState: JSONValue.parse(bad)!) }
    }
  }

  @Test func remoteActionsBecomeButtonEvents() throws {
    #expect(try Zigbee2MQTTRemote.action(fromState: JSONValue.parse(#"{"action":"single","battery":90}"#)!) == "single")
    #expect(try Zigbee2MQTTRemote.action(fromState: JSONValue.parse(#"{"action":""}"#)!) == nil)
    #expect(try Zigbee2MQTTRemote.action(fromState: JSONValue.parse(#"{"battery":90}"#)!) == nil)
    #expect(Zigbee2MQTTRemote.buttonAction("single") == .click)
    #expect(Zigbee2MQTTRemote.buttonAction("double") == .doubleClick)
    #expect(Zigbee2MQTTRemote.buttonAction("hold") == .hold)
    #expect(Zigbee2MQTTRemote.buttonAction("on_press_release") == .up)
    #expect(Zigbee2MQTTRemote.buttonAction("brightness_up_click") == .click)
    #expect(Zigbee2MQTTRemote.buttonAction("brightness_move_up") == nil)
  }
}
