import Foundation
import PatchbayTestSupport
import Testing

extension PythonPluginTests {
  /// The Rust template (packaging/sdk/templates/rust) builds with cargo alone, offline, and its
  /// library runs under a real hub: a press into the Rust doorbell reaches the C counter through
  /// a route, and the count and the ring text reach a Swift recorder.
  @Suite struct RustTemplateTests {
    static let template = HubUnderTest.repositoryRoot + "/packaging/sdk/templates/rust"

    /// cargo on PATH, or rustup's default place.
    static let cargo: String? = {
      let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
      let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
      let candidates = path.split(separator: ":").map { "\($0)/cargo" } + ["\(home)/.cargo/bin/cargo"]
      return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    @Test(
      .enabled(
        if: RustTemplateTests.cargo != nil,
        "cargo is not installed (PATH or ~/.cargo/bin): the Rust template is not tested"))
    func theRustDoorbellBuildsOfflineAndRunsUnderTheHub() throws {
      let hub = try HubUnderTest.python()
      // A copy, so cargo's Cargo.lock and target/ stay out of the source tree.
      let source = hub.path + "/rust-template"
      try FileManager.default.createDirectory(atPath: source + "/src", withIntermediateDirectories: true)
      for file in ["Cargo.toml", "src/lib.rs", "src/abi.rs", "src/kit.rs"] {
        try FileManager.default.copyItem(atPath: Self.template + "/" + file, toPath: source + "/" + file)
      }
      let build = try runProgram(
        Self.cargo!,
        [
          "build", "--offline", "--release", "--manifest-path", source + "/Cargo.toml", "--target-dir",
          hub.path + "/cargo-target",
        ], within: 600)
      #expect(build.status == 0, "\(build.output)")
      try FileManager.default.copyItem(
        atPath: hub.path + "/cargo-target/release/libpatchbay_plugin_doorbell.so",
        toPath: hub.path + "/plugins/libpatchbay-plugin-doorbell.so")
      try hub.writeConfig(
        HubTOML().instance("door", plugin: "doorbell", ["message": "Someone is at the door"])
          + HubUnderTest.counter
          + hub.probe(.state("count", "integer"), .event("ring", "text"))
          .routes(["door.rings": "counter.set", "counter.count": "probe.count", "door.ring": "probe.ring"]))
      let check = try hub.cli("check")
      #expect(check.status == 0, "\(check.output)")
      try hub.start()
      try eventually("count 0 recorded", within: 60) {
        hub.lines("probe.jsonl").contains(#"{"port":"count","value":0}"#)
      }
      #expect(try hub.cli("send", "door.press", "click").status == 0)
      #expect(try hub.cli("send", "door.press", "hold").status == 0)  // ring_on_hold is false
      #expect(try hub.cli("send", "door.press", "double_click").status == 0)
      try eventually("count 2 recorded", within: 60) {
        hub.lines("probe.jsonl").contains(#"{"port":"count","value":2}"#)
      }
      #expect(hub.lines("probe.jsonl").filter { $0 == #"{"port":"ring","value":"Someone is at the door"}"# }.count == 2)
      #expect(!hub.lines("probe.jsonl").contains(#"{"port":"count","value":3}"#))
      #expect(hub.log.contains("doorbell ready"))
      #expect(try hub.process!.terminate(within: 60) == 0)
    }
  }
}
