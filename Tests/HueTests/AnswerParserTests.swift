import Foundation
import HueProtocol
import Testing

@Suite struct AnswerParserTests {
  func data(_ text: String) -> Data { Data(text.utf8) }

  @Test func mixedSuccessAndErrorEntriesAreReadPerAttribute() throws {
    let results = try HueAnswerParser.results(
      data(
        #"[{"success":{"/lights/1/state/on":true}},{"error":{"type":201,"address":"/lights/1/state/bri","description":"parameter, bri, is not modifiable. Device is set to off."}},{"success":{"/lights/1/state/hue":21845}}]"#
      ))
    #expect(results.successes.map(\.address) == ["/lights/1/state/on", "/lights/1/state/hue"])
    #expect(results.successes.first?.value == .bool(true))
    #expect(
      results.errors == [
        HueAPIError(
          .deviceIsOff, address: "/lights/1/state/bri",
          detail: "parameter, bri, is not modifiable. Device is set to off.")
      ])
    #expect(results.errors.first?.known == .deviceIsOff)
    #expect(try HueAnswerParser.results(data(results.json.text)) == results)
  }

  @Test func pairingAnswersCarryTheUsernameOrError101() throws {
    let paired = try HueAnswerParser.results(data(#"[{"success":{"username":"83b7780291a6ceffbe0bd049104df"}}]"#))
    #expect(paired.successes.first?.value.stringValue == "83b7780291a6ceffbe0bd049104df")
    let refused = try HueAnswerParser.results(
      data(#"[{"error":{"type":101,"address":"","description":"link button not pressed"}}]"#))
    #expect(refused.errors.first?.known == .linkButtonNotPressed)
  }

  @Test func lightsAreReadAndABrokenEntryIsSkipped() throws {
    let lights = try HueAnswerParser.lights(
      data(
        #"{"1":{"name":"Desk","type":"Extended color light","state":{"on":true,"bri":200,"hue":46920,"sat":254,"ct":300,"colormode":"hs","reachable":true,"xy":[0.1,0.2]}},"2":{"name":"Hall","state":{"on":false,"bri":1,"reachable":false}},"3":{"name":"Odd","state":{"on":"yes"}},"4":{"name":"Odd2","state":{"on":true,"bri":"max"}}}"#
      ))
    #expect(lights.keys.sorted() == ["1", "2"])
    #expect(
      lights["1"]?.state == HueLightState(on: true, bri: 200, hue: 46920, sat: 254, ct: 300, colorMode: .hueSaturation))
    #expect(lights["2"]?.state == HueLightState(on: false, bri: 1, reachable: false))
    #expect(HueAnswerParser.light(lights["1"]!.json) == lights["1"])
  }

  @Test func groupsAreRead() throws {
    let groups = try HueAnswerParser.groups(
      data(
        #"{"1":{"name":"Living","type":"Room","lights":["1","2"],"state":{"any_on":true,"all_on":false},"action":{"on":true}},"2":{"name":"Bad","lights":[1]}}"#
      ))
    #expect(groups == ["1": HueGroup(name: "Living", lights: ["1", "2"], anyOn: true, allOn: false)])
  }

  @Test func errorsGarbageAndWrongShapesThrowNamedErrors() {
    #expect(
      throws: HueParseError.bridgeErrors([
        HueAPIError(.unauthorizedUser, address: "/lights", detail: "unauthorized user")
      ])
    ) {
      try HueAnswerParser.lights(
        self.data(#"[{"error":{"type":1,"address":"/lights","description":"unauthorized user"}}]"#))
    }
    #expect(throws: HueParseError.self) { try HueAnswerParser.lights(self.data("<html><body>503</body></html>")) }
    #expect(throws: HueParseError.self) { try HueAnswerParser.results(self.data(#"{"success":true}"#)) }
    #expect(throws: HueParseError.self) { try HueAnswerParser.results(self.data(#"[{"weird":1}]"#)) }
    #expect(throws: HueParseError.self) { try HueAnswerParser.groups(self.data("[]")) }
    #expect(throws: HueParseError.self) { try HueAnswerParser.results(self.data("")) }
  }
}
