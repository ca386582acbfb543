import Testing

@testable import HuePlugin

@Suite struct HueConfigTests {
  func config(_ json: String) throws -> HueConfig { try HueConfig(json: json) }

  func message(_ json: String) -> String {
    do {
      _ = try HueConfig(json: json)
      return "accepted"
    } catch {
      return "\(error)"
    }
  }

  @Test func aFullConfigIsRead() throws {
    let parsed = try config(
      #"{"bridge":"http://10.0.0.2:8080/","username":"abc-DEF-123","poll_interval_s":1,"light_rate":5,"groups":[{"name":"living","id":1,"lights":["1",2],"expose_lights":true,"light_names":{"2":"desk"}},{"name":"kitchen","bridge_group":"Kitchen"},{"name":"shelf","lights":["7"]}]}"#
    )
    #expect(parsed.host == "10.0.0.2" && parsed.port == 8080)
    #expect(parsed.lightRate == 5 && parsed.groupRate == 1 && parsed.pollIntervalSeconds == 1)
    #expect(parsed.groups[0].source == .bridgeGroup(id: "1"))
    #expect(parsed.groups[0].members == [.init(lightID: "1", name: "light1"), .init(lightID: "2", name: "desk")])
    #expect(parsed.groups[1].source == .bridgeGroupNamed("Kitchen"))
    #expect(parsed.groups[2].source == .lights)
  }

  @Test func aMisspeltGroupKeyGetsADidYouMean() {
    let text = message(#"{"bridge":"b","username":"u","groups":[{"name":"g","lights":["1"],"expose_light":true}]}"#)
    #expect(text.contains("unknown key 'groups.0.expose_light' (did you mean 'groups.0.expose_lights'?)"), "\(text)")
  }

  @Test func mistakesNameTheirKeyAndNeverEchoTheUsername() {
    let base = #""bridge":"b","username":"u1","groups":[{"name":"g","id":"1"}]"#
    #expect(
      message("{\(base),\"pol_interval_s\":1}").contains(
        "unknown key 'pol_interval_s' (did you mean 'poll_interval_s'?)"))
    #expect(
      message(#"{"bridge":"b","username":"secret/value","groups":[{"name":"g","id":"1"}]}"#).contains(
        "username must be"))
    #expect(!message(#"{"bridge":"b","username":"secret/value","groups":[{"name":"g","id":"1"}]}"#).contains("secret"))
    #expect(
      message(#"{"bridge":"b","username":"u","groups":[{"name":"g","lights":["1","1"]}]}"#).contains(
        "groups.0.lights: light 1 is listed twice"))
    #expect(
      message(#"{"bridge":"b","username":"u","groups":[{"name":"g","id":"1","bridge_group":"x"}]}"#).contains(
        "groups.0 has both id and bridge_group"))
    #expect(
      message(#"{"bridge":"b","username":"u","groups":[{"name":"g","lights":["1"],"light_names":{"2":"x"}}]}"#)
        .contains("groups.0.light_names.2: light 2 is not in groups.0.lights"))
    #expect(
      message(#"{"bridge":"b","username":"u","groups":[{"name":"g","id":"1"},{"name":"g","id":"2"}]}"#).contains(
        "groups.1.name 'g' is used twice"))
    #expect(
      message(#"{"bridge":"b:99999","username":"u","groups":[{"name":"g","id":"1"}]}"#).contains(
        "the port after ':' must be 1...65535"))
    #expect(message("{\(base),\"max_in_flight\":0}").contains("max_in_flight must be 1...16, not 0"))
    #expect(message(#"{"bridge":"b","username":"u","groups":[]}"#).contains("groups must be a non-empty array"))
    #expect(
      message(#"{"bridge":"b","username":"u","groups":[{"name":"g","lights":["x"]}]}"#).contains(
        #"groups.0.lights.0 must be a light id like "1" (digits), not "x""#))
    #expect(
      message(#"{"bridge":"b","username":"u","groups":[{"name":"g","id":true}]}"#).contains(
        #"groups.0.id must be a bridge group id like "1" (digits), not true"#))
    #expect(
      message("{\(base),\"poll_interval_s\":0.1}").contains("poll_interval_s must be between 0.2 and 3600 s, not 0.1"))
    #expect(message(#"{"bridge":"b","groups":[{"name":"g","id":"1"}]}"#).contains("missing required key 'username'"))
  }
}
