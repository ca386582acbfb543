import Foundation
import PatchbayTestSupport
import Testing

/// `patchbay plugin test`, the real command on real compiled plugins: each fixture in Fixtures/
/// breaks one ABI rule and must be reported by that rule's name, and only by it; the control
/// fixture and every bundled plugin pass.
@Suite struct PluginConformanceTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
  static let fixtures = root + "/Tests/ConformanceTests/Fixtures"

  /// A rule's outcome and reason, from `--json`.
  struct Report {
    var status: Int32
    var outcomes: [String: (outcome: String, reason: String)]
    var output: String

    var failed: [String] { outcomes.filter { $0.value.outcome == "fail" }.map(\.key).sorted() }
  }

  /// Compiles Fixtures/NAME.c with gcc into `directory` as the packaged file name.
  static func build(_ name: String, into directory: TemporaryDirectory) throws -> String {
    let library = directory.path + "/libpatchbay-plugin-\(name).so"
    let result = try runProgram(
      "/usr/bin/gcc",
      [
        "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-I", root + "/Sources/CPatchbayPlugin/include", "-o",
        library, fixtures + "/\(name).c", "-lpthread",
      ])
    #expect(result.status == 0, "gcc \(name).c: \(result.output)")
    return library
  }

  static func check(_ library: String, _ options: [String] = []) throws -> Report {
    let result = try runProgram(
      BuildProducts.executable("patchbay"),
      ["plugin", "test", library, "--json", "--observe-ms", "300"] + options, within: 300)
    let json = result.output.firstIndex(of: "{").map { String(result.output[$0...]) } ?? ""
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "not JSON: \(result.output)")
    let rules = try #require(object["rules"] as? [[String: Any]])
    var outcomes: [String: (String, String)] = [:]
    for rule in rules {
      outcomes[rule["rule"] as? String ?? "?"] = (rule["outcome"] as? String ?? "?", rule["reason"] as? String ?? "")
    }
    #expect((object["passed"] as? Bool) == (result.status == 0), "passed disagrees with the exit status")
    return Report(status: result.status, outcomes: outcomes, output: result.output)
  }

  static let allRules = [
    "descriptor", "lifecycle", "ports-declared-in-create", "no-publish-before-start", "no-publish-after-stop",
    "publish-matches-port", "callbacks-return-in-time", "no-threads-after-stop", "no-crash", "config-errors-are-clear",
    "sandbox",
  ]

  @Test func aPluginThatKeepsEveryRulePassesEveryRule() throws {
    let directory = try TemporaryDirectory("conformance")
    let library = try Self.build("well-behaved", into: directory)
    let config = try directory.write("greeting.toml", "greeting = \"hi\"\n")
    let report = try Self.check(library, ["--config", config])
    #expect(report.status == 0, "\(report.output)")
    #expect(Set(report.outcomes.keys) == Set(Self.allRules))
    for rule in Self.allRules { #expect(report.outcomes[rule]?.outcome == "pass", "\(rule): \(report.output)") }
    #expect(report.outcomes["lifecycle"]?.reason.contains("2 input(s)") == true, "\(report.output)")
    #expect(report.outcomes["config-errors-are-clear"]?.reason.contains("greeting: required") == true)
  }

  /// Each broken fixture, the rule it breaks, and words its reason must contain.
  static let broken: [(fixture: String, rule: String, reason: String)] = [
    ("publishes-before-start", "no-publish-before-start", "during create()"),
    ("publishes-after-stop", "no-publish-after-stop", "after stop() returned"),
    ("blocks-in-start", "callbacks-return-in-time", "start did not return"),
    ("publishes-wrong-type", "publish-matches-port", "a text, the port carries integer"),
    ("leaks-thread", "no-threads-after-stop", "plugin-context"),
    ("crashes-in-receive", "no-crash", "during receive(poke)"),
    ("declares-port-after-create", "ports-declared-in-create", "add_port('late') called after start()"),
    ("crashes-on-missing-config", "config-errors-are-clear", "during create"),
    // Named from the header's constants: the stale copy had no PB_ERR_BUSY ("status -11").
    ("refuses-config-as-busy", "config-errors-are-clear", "create() returned PB_ERR_BUSY: greeting: required"),
    ("wrong-abi", "descriptor", "built for plugin ABI 2."),
  ]

  @Test(arguments: broken.map(\.fixture))
  func eachBrokenRuleIsReportedByName(_ fixture: String) throws {
    let expected = try #require(Self.broken.first { $0.fixture == fixture })
    let directory = try TemporaryDirectory("conformance")
    let library = try Self.build(fixture, into: directory)
    let config = try directory.write("greeting.toml", "greeting = \"hi\"\n")
    let report = try Self.check(library, ["--config", config, "--hang-timeout-ms", "1500"])
    #expect(report.status == 1, "\(report.output)")
    #expect(report.failed == [expected.rule], "\(report.output)")
    let reason = report.outcomes[expected.rule]?.reason ?? ""
    #expect(reason.contains(expected.reason), "\(expected.rule): \(reason)")
  }

  /// The hub finds a plugin by its file name: a descriptor naming another plugin fails `descriptor`.
  @Test func aFileNamedForAnotherPluginFailsTheDescriptorRule() throws {
    let directory = try TemporaryDirectory("conformance")
    let built = try Self.build("well-behaved", into: directory)
    let misnamed = directory.path + "/libpatchbay-plugin-misnamed.so"
    try FileManager.default.moveItem(atPath: built, toPath: misnamed)
    let report = try Self.check(misnamed)
    #expect(report.status == 1)
    #expect(report.failed == ["descriptor"], "\(report.output)")
    #expect(
      report.outcomes["descriptor"]?.reason.contains(
        "the file name says plugin 'misnamed', its descriptor says 'well-behaved'")
        == true, "\(report.output)")
  }

  @Test func theTextReportNamesTheRuleAndTheExitStatusSaysFailed() throws {
    let directory = try TemporaryDirectory("conformance")
    let library = try Self.build("crashes-in-receive", into: directory)
    let config = try directory.write("greeting.toml", "greeting = \"hi\"\n")
    let result = try runProgram(
      BuildProducts.executable("patchbay"), ["plugin", "test", library, "--config", config, "--observe-ms", "100"])
    #expect(result.status == 1)
    let line = result.output.split(separator: "\n").first { $0.hasPrefix("FAIL") }.map(String.init) ?? ""
    #expect(line.contains("no-crash") && line.contains("signal 11"), "\(result.output)")
    #expect(result.output.contains("rules: 6 passed, 1 failed, 4 skipped"), "\(result.output)")
  }

  /// Every bundled plugin passes with its shipped example config (etc/plugins/NAME.toml): the
  /// peers it would talk to are absent, which a plugin must survive.
  static let bundled = [
    "example-c", "example-swift", "flic", "flic-ble", "homebridge-websocket", "homekit", "hue", "party-lights",
    "schedule", "mqtt",
    "python",
  ]

  @Test(arguments: bundled)
  func everyBundledPluginPasses(_ plugin: String) throws {
    let directory = try TemporaryDirectory("conformance")
    var options: [String] = []
    switch plugin {
    case "example-c": break
    case "example-swift":
      options = [
        "--config", try directory.write("mirror.toml", "ports = [{ name = \"level\", type = \"integer\" }]\n"),
      ]
    case "python":
      // The example module from the source tree, watching a directory of the test's own.
      let example = try String(contentsOfFile: Self.root + "/etc/plugins/python.toml", encoding: .utf8)
        .replacingOccurrences(
          of: "/etc/patchbay/python/doorbell.py", with: Self.root + "/Plugins/python/examples/doorbell.py"
        )
        .replacingOccurrences(of: "\"/run/doorbell\"", with: "\"\(directory.path)\"")
      options = ["--config", try directory.write("python.toml", example)]
    default:
      options = ["--config", Self.root + "/etc/plugins/\(plugin).toml"]
    }
    let report = try Self.check(BuildProducts.plugin(plugin), options)
    #expect(report.status == 0, "\(report.output)")
    #expect(report.failed.isEmpty, "\(report.output)")
    #expect(report.outcomes["lifecycle"]?.outcome == "pass", "\(report.output)")
  }
}
