import Foundation
import PatchbayTestSupport
import Testing

/// `patchbay check` with homekit instances: each config mistake is named with the file and key;
/// the shipped example and snippet pass.
struct HomeKitCheckTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-homekit-check") }

  func check(_ body: String) throws -> (status: Int32, output: String, file: String) {
    try HubUnderTest.checkInstance("homekit", plugin: "homekit", body)
  }

  static func accessories(_ count: Int) -> String {
    (0..<count).map { "[[instances.homekit.accessories]]\nname = \"switch \($0)\"\nservice = \"switch\"\n" }.joined()
  }

  @Test func mistakesNameTheFileAndKey() throws {
    let valid = Self.accessories(2)
    let accepted = try check(valid)
    #expect(accepted.status == 0, "\(accepted.output)")
    let mistakes: [(String, String)] = [
      (Self.accessories(150), "accessories lists 150 accessories; a HomeKit bridge serves at most 149"),
      (Self.accessories(1) + Self.accessories(1), "accessories.1.name: 'switch 0' is listed twice"),
      (
        valid.replacingOccurrences(of: "service = \"switch\"", with: "service = \"toaster\""),
        "accessories.0.service unknown service 'toaster'"
      ),
      ("setup_code = \"123-45-678\"\n" + valid, "setup_code"),
      ("setup_code = \"000-00-000\"\n" + valid, "setup_code"),
      ("setup_code = \"1234-5678\"\n" + valid, "setup_code a setup code is 8 digits written XXX-XX-XXX"),
    ]
    for (body, message) in mistakes {
      let result = try check(body)
      #expect(result.status != 0)
      #expect(result.output.contains(message), "\(message) not in:\n\(result.output)")
      #expect(result.output.contains(result.file), "the file not named in:\n\(result.output)")
      #expect(result.output.contains("instances.homekit"), "the instance not named in:\n\(result.output)")
    }
  }

  @Test(arguments: ["etc/examples/bedside-homekit.toml", "etc/plugins/homekit.toml"])
  func shippedConfigsPass(_ example: String) throws {
    let hub = try HubUnderTest("patchbay-homekit-check", plugins: ["homekit", "flic", "hue", "party-lights"])
    // The shipped file's instances and routes, with the test hub's directories.
    let text = try String(contentsOfFile: HubUnderTest.repositoryRoot + "/" + example, encoding: .utf8)
    try hub.writeConfig(text)
    let result = try hub.check()
    #expect(result.status == 0, "\(example): \(result.output)")
  }
}
