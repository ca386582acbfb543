import Foundation
import HueProtocol
import PatchbayTestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `patchbay hue pair` against the simulated bridge, and config mistakes through `patchbay check`.
@Suite(.serialized) struct HuePairAndCheckTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-hue-pair") }

  @Test func pairWaitsForTheLinkButtonAndPrintsAWorkingUsername() throws {
    let bridge = try SimulatorUnderTest.hueBridge(directory: directory, arguments: [])
    let address = "127.0.0.1:\(bridge.port)"

    let early = try runProgram(BuildProducts.executable("patchbay"), ["hue", "pair", address, "--timeout", "2"])
    #expect(early.status == 1)
    #expect(early.output.contains("Press the link button on the bridge at \(address)"))
    #expect(early.output.contains("not paired: the link button was not pressed within 2 s"))

    let pair = try ChildProcess(BuildProducts.executable("patchbay"), ["hue", "pair", address, "--timeout", "60"])
    try pair.waitForLine(containing: "Press the link button", within: 60)
    try eventually("a refused attempt after the prompt") {
      let stats = try bridge.control("stats")
      return stats.contains("link-refused=") && !stats.contains("link-refused=0")
    }
    try bridge.control("press-link-button")
    #expect(try pair.waitForExit() == 0, "\(pair.output)")
    try eventually("snippet printed", within: 5) { pair.output.contains("[instances.lights]") }
    #expect(pair.output.contains(#"bridge = "\#(address)""#))
    let line = try #require(pair.lines.first { $0.hasPrefix("username = \"") })
    let username = String(line.dropFirst("username = \"".count).dropLast())
    #expect(username.count == 40)

    // The new username reads the bridge; a made-up one gets error 1.
    let lights = try HueAnswerParser.lights(
      Data(contentsOf: URL(string: "http://\(address)/api/\(username)/lights")!))
    #expect(lights.count == 3)
    #expect(throws: HueParseError.self) {
      try HueAnswerParser.lights(Data(contentsOf: URL(string: "http://\(address)/api/nobody/lights")!))
    }
  }

  func check(_ hue: String) throws -> (status: Int32, output: String) {
    let config = try directory.write(
      "check-\(UUID().uuidString.prefix(6)).toml", "[instances.lights]\nplugin = \"hue\"\n" + hue)
    return try runProgram(BuildProducts.executable("patchbay"), ["check", "--config", config])
  }

  @Test func checkNamesTheKeyOfEachConfigMistake() throws {
    let valid = """
      bridge = "127.0.0.1:8000"
      username = "abc-123"
      [[instances.lights.groups]]
      name = "living"
      id = "1"
      """
    let accepted = try check(valid)
    #expect(accepted.status == 0, "\(accepted.output)")
    let mistakes: [(String, String)] = [
      (
        "bridge = \"127.0.0.1\"\n[[instances.lights.groups]]\nname = \"a\"\nid = \"1\"",
        "missing required key 'username'"
      ),
      (
        valid.replacingOccurrences(of: "id = \"1\"", with: "lightz = [\"1\"]"),
        "unknown key 'groups.0.lightz' (did you mean 'groups.0.lights'?)"
      ),
      (valid + "\nexpose_lights = true", "groups.0.expose_lights needs groups.0.lights"),
      ("light_rate = 500\n" + valid, "light_rate must be between 0.1 and 100 commands/s, not 500"),
      (
        valid.replacingOccurrences(of: "127.0.0.1:8000", with: "https://bridge"),
        "bridge 'https://bridge': the v1 API is plain http"
      ),
      (
        valid.replacingOccurrences(of: "abc-123", with: "abc/../x"),
        "username must be the 1 to 80 letters, digits or '-'"
      ),
      (
        valid.replacingOccurrences(of: "id = \"1\"", with: "id = \"x1\""),
        "groups.0.id must be a bridge group id like \"1\""
      ),
      (
        valid.replacingOccurrences(of: "name = \"living\"", with: "name = \"Living Room\""),
        "groups.0.name 'Living Room' must be 1 to 48 lowercase letters"
      ),
      (
        valid.replacingOccurrences(of: "id = \"1\"", with: ""),
        "groups.0 needs one of id (a bridge group id), bridge_group (its name) or lights"
      ),
    ]
    for (config, message) in mistakes {
      let result = try check(config)
      #expect(result.status != 0)
      #expect(result.output.contains(message), "\(message) not in:\n\(result.output)")
    }
  }
}
