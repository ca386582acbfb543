import Foundation
import PatchbayTestSupport
import Testing

extension PythonPluginTests {
  /// The shipped example, etc/plugins/python.toml with Plugins/python/examples/doorbell.py, passes
  /// `patchbay check` and rings: a file appears, a click reaches the C counter through a route.
  @Suite struct ExampleModuleTests {
    @Test func theShippedDoorbellExampleChecksAndRings() throws {
      let hub = try HubUnderTest.python()
      // The sandbox grants only what exists: the watched folder is made first, as the example says.
      try FileManager.default.createDirectory(atPath: hub.path + "/watch", withIntermediateDirectories: true)
      let example = try String(
        contentsOfFile: HubUnderTest.repositoryRoot + "/etc/plugins/python.toml", encoding: .utf8)
      #expect(example.contains(#"module = "/etc/patchbay/python/doorbell.py""#))
      let section =
        example
        .replacingOccurrences(
          of: #"module = "/etc/patchbay/python/doorbell.py""#,
          with: #"module = "\#(HubUnderTest.repositoryRoot)/Plugins/python/examples/doorbell.py""#
        )
        .replacingOccurrences(of: #""/run/doorbell""#, with: #""\#(hub.path)/watch""#)
      // The example's instance table is last: `interval` goes under it.
      try hub.writeConfig(
        HubTOML().raw(section).keys(["interval": 0.02])
          + HubUnderTest.counter
          + hub.probe(.state("count", "integer"), .state("rings", "integer"))
          .route(from: "doorbell.press", to: "counter.increment", ["filter": ["click"]])
          .routes(["counter.count": "probe.count", "doorbell.rings": "probe.rings"]))
      let check = try hub.cli("check")
      #expect(check.status == 0, "\(check.output)")
      try hub.start()
      try hub.waitForLogLine(containing: "watching \(hub.path)/watch for 'ring'")
      try hub.directory.write("watch/ring", "")
      try eventually("count 1 recorded", within: 60) {
        hub.lines("probe.jsonl").contains(#"{"port":"count","value":1}"#)
      }
      try eventually("rings 1 recorded", within: 60) {
        hub.lines("probe.jsonl").contains(#"{"port":"rings","value":1}"#)
      }
      #expect(try hub.process!.terminate(within: 60) == 0)
    }
  }
}
