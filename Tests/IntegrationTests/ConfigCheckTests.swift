import Foundation
import PatchbayTestSupport
import Testing

/// `patchbay check` reports every kind of mistake, with file and key, in one run.
@Suite(.serialized) struct ConfigCheckTests {
  @Test func reportsEveryKindOfErrorInOneRun() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["example-swift", "example-c"])
    try harness.writeConfig(
      """
      [instances.counter]
      plugin = "example-c"

      [instances.probe]
      plugin = "example-swift"
      ports = [{ name = "level", type = "bool", kind = "state" }]

      [instances.lamp]
      plugin = "exampel-swift"

      [instances.nokey]
      step = 3

      [instances.badconfig]
      plugin = "example-swift"
      ports = [{ name = "x", type = "colour" }]

      # unknown instance
      [[routes]]
      from = "countr.count"
      to = "probe.level"

      # unknown port
      [[routes]]
      from = "counter.cont"
      to = "probe.level"

      # type mismatch
      [[routes]]
      from = "counter.count"
      to = "probe.level"

      # route into an output
      [[routes]]
      from = "counter.count"
      to = "counter.tick"

      # bad transform parameter
      [[routes]]
      from = "counter.tick"
      to = "probe.level"
      cycle = [true]
      """)
    try harness.directory.write(
      "conf.d/10-more.toml",
      """
      [instances.counter]
      plugin = "example-c"
      """)
    try harness.directory.write(
      "conf.d/20-broken.toml",
      """
      [instances.other]
      plugin = "example-c"
      step = = 2
      """)
    let result = try harness.cli("check")
    #expect(result.status == 1)
    let output = result.output
    let main = harness.configPath
    let expected = [
      // syntax error in a conf.d file, with line and column
      "conf.d/20-broken.toml:3:",
      // duplicate instance across files
      "10-more.toml: instances.counter: duplicate instance 'counter'",
      // unknown plugin with a suggestion
      "\(main): instances.lamp.plugin: unknown plugin 'exampel-swift' (did you mean 'example-swift'?)",
      // missing required key
      "\(main): instances.nokey.plugin: missing required key",
      // the plugin refuses its own config, naming the key
      "instances.badconfig: plugin 'example-swift': ports.0.type: unknown type 'colour'",
      // unknown instance with a suggestion
      "routes[1].from: unknown instance 'countr' in 'countr.count' (did you mean 'counter'?)",
      // unknown port with a suggestion
      "routes[2].from: instance 'counter' has no port 'cont' (did you mean 'count'?)",
      // type mismatch naming both ends
      "routes[3]: type mismatch: counter.count is integer but probe.level is bool",
      // route into an output
      "routes[4].to: 'counter.tick' is an output port; a route writes into input ports",
      // bad transform parameter
      "routes[5].cycle: must be an array of at least two values",
    ]
    for line in expected {
      #expect(output.contains(line), "missing: \(line)\n--- output:\n\(output)")
    }
  }

  /// toml++ aborts on some malformed files. The guard turns the known ones into syntax errors;
  /// with the guard switched off, the real parser aborts, in a child process, and `check` and
  /// `run` still name the file and the line instead of dying.
  @Test func aParserAbortIsReportedWithFileAndLine() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["example-c"])
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "example-c"))
    try harness.directory.write(
      "conf.d/20-broken.toml",
      """
      # a stray brace inside an array
      [instances.other]
      plugin = "example-c"
      tags = [
        "a",
      }
      """)
    let broken = harness.directory.path + "/conf.d/20-broken.toml"
    let guarded = try harness.cli("check")
    #expect(guarded.status == 1)
    #expect(guarded.output.contains("\(broken):6:1: TOML syntax error:"), "\(guarded.output)")

    let patchbay = BuildProducts.executable("patchbay")
    for command in ["check", "run"] {
      let child = try ChildProcess(
        patchbay, [command, "--config", harness.configPath], environment: ["PATCHBAY_UNGUARDED_TOML": "1"])
      #expect(try child.waitForExit(within: 120) == 1)
      try child.waitForLine(containing: "\(broken):6: the TOML parser (toml++) aborted", within: 30)
      #expect(!child.output.contains("hub started"))
    }
  }

  @Test func acceptsTheShippedExample() throws {
    let example = HubUnderTest.repositoryRoot + "/etc/examples/counter.toml"
    let result = try runProgram(BuildProducts.executable("patchbay"), ["check", "--config", example])
    #expect(result.status == 0, "\(result.output)")
    #expect(result.output.contains("OK (2 instances, 3 routes)"))
  }
}
