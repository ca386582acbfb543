import Foundation
import MQTTProtocol
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

  /// Plugins/mqtt/Fuzz/findings/z2m-*: every report that once got past the checks is refused now.
  @Test func theFuzzerFindingsAreRefused() throws {
    let findings = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Plugins/mqtt/Fuzz/findings")
    let names = try FileManager.default.contentsOfDirectory(atPath: findings.path).sorted().filter {
      $0.hasPrefix("z2m-")
    }
    #expect(names.contains("z2m-color-temp-out-of-range"))
    for name in names {
      let bytes = try [UInt8](Data(contentsOf: findings.appendingPathComponent(name)))
      #expect(throws: PayloadError.self, "\(name)") { try Zigbee2MQTTLight.command(fromPayload: bytes) }
    }
    // A color temperature outside what a bulb can be asked for, either way the report says it.
    for bad in [#"{"color_mode":"color_temp","color_temp":38}"#, #"{"color_temp":-5}"#, #"{"color_temp":2000}"#] {
      #expect(throws: PayloadError("color_temp \(bad.split(separator: ":").last!.dropLast()) is not 50...1000 mired")) {
        try Zigbee2MQTTLight.command(fromPayload: Array(bad.utf8))
      }
    }
    #expect(try Zigbee2MQTTLight.command(fromPayload: Array(#"{"color_temp":153}"#.utf8)).colorTemperature == 153)
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
