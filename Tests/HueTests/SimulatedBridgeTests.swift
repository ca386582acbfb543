import Foundation
import HueProtocol
import Testing

@testable import HueSimulator

/// The simulator's answers, in process: what a bridge says to valid and invalid requests.
@Suite struct SimulatedBridgeTests {
  let bridge: SimulatedBridge

  init() throws {
    bridge = SimulatedBridge(
      lights: [
        "1": HueLight(
          name: "One", state: HueLightState(on: false, bri: 100, hue: 0, sat: 0, colorMode: .hueSaturation)),
        "2": HueLight(name: "Two", state: HueLightState(on: true, bri: 100, hue: 0, sat: 0, colorMode: .hueSaturation)),
      ],
      groups: ["1": HueGroup(name: "Both", lights: ["1", "2"])], usernames: ["user"],
      settings: .init(lightRate: 10, groupRate: 1, overLimit: .drop), record: try CommandRecord(path: nil))
  }

  func put(_ path: String, _ body: String) throws -> [HueResult] {
    let answer = bridge.handle(method: "PUT", path: "/api/user" + path, body: Array(body.utf8))
    #expect(answer.status == 200)
    return try HueAnswerParser.results(Data(answer.body.utf8))
  }

  func errorTypes(_ results: [HueResult]) -> [Int] { results.errors.map(\.type) }

  @Test func validationAnswersLikeABridge() throws {
    #expect(errorTypes(try put("/lights/1/state", #"{"bri":100}"#)) == [201])
    #expect(errorTypes(try put("/lights/1/state", #"{"on":true,"bri":300,"hue":-1,"sat":"x"}"#)) == [7, 7, 7])
    #expect(bridge.lightJSON("1")?["state"]?["on"] == .bool(true))
    #expect(errorTypes(try put("/lights/9/state", #"{"on":true}"#)) == [3])
    let answer = bridge.handle(method: "GET", path: "/api/nobody/lights", body: [])
    #expect(
      throws: HueParseError.bridgeErrors([
        HueAPIError(.unauthorizedUser, address: "/lights", detail: "unauthorized user")
      ])
    ) {
      try HueAnswerParser.lights(Data(answer.body.utf8))
    }
    #expect(errorTypes(try put("/lights/2/state", #"{"colour":1}"#)) == [6])
    #expect(errorTypes(try put("/lights/2/state", "not json")) == [2])
  }

  @Test func groupZeroHoldsEveryLightAndLimitsDropCommands() throws {
    #expect(try put("/groups/0/action", #"{"on":true,"hue":1000}"#).errors.isEmpty)
    #expect(bridge.lightJSON("1")?["state"]?["hue"]?.integerValue == 1000)
    #expect(bridge.lightJSON("2")?["state"]?["hue"]?.integerValue == 1000)
    // Group rate 1: the next group command within the second is dropped (success, not applied).
    #expect(try put("/groups/1/action", #"{"hue":2000}"#).errors.isEmpty)
    #expect(bridge.lightJSON("1")?["state"]?["hue"]?.integerValue == 1000)
    #expect(bridge.counterText().contains("dropped=1"))
  }

  @Test func pairingNeedsTheLinkButton() throws {
    let before = bridge.handle(method: "POST", path: "/api", body: Array(#"{"devicetype":"test#one"}"#.utf8))
    #expect(try HueAnswerParser.results(Data(before.body.utf8)).errors.map(\.type) == [101])
    bridge.pressLinkButton()
    let after = bridge.handle(method: "POST", path: "/api", body: Array(#"{"devicetype":"test#one"}"#.utf8))
    let username = try #require(try HueAnswerParser.results(Data(after.body.utf8)).successes.first?.value.stringValue)
    let lights = bridge.handle(method: "GET", path: "/api/\(username)/lights", body: [])
    #expect(try HueAnswerParser.lights(Data(lights.body.utf8)).count == 2)
  }
}

@Suite struct RateLimiterTests {
  @Test func aSlidingSecondHoldsAtMostTheRate() {
    var limiter = RateLimiter(perSecond: 10)
    let admitted = (0..<12).filter { limiter.admit(now: 100 + Double($0) * 0.01) }.count
    #expect(admitted == 10)
    let afterTheSecond = limiter.admit(now: 101.005)
    #expect(afterTheSecond)
    var slow = RateLimiter(perSecond: 0.25)
    let first = slow.admit(now: 0)
    let tooSoon = slow.admit(now: 3.9)
    let later = slow.admit(now: 4.1)
    #expect(first && !tooSoon && later)
  }
}
