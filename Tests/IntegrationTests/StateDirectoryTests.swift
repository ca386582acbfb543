import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Each instance's state directory is its own: 0700, never reached through a symbolic link.
@Suite struct StateDirectoryTests {
  static func mode(_ path: String) -> mode_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
  }

  @Test func stateDirectoriesArePrivateAndNeverFollowedThroughALink() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["example-swift"])
    let instances = harness.stateDirectory + "/instances"
    // What an older hub left: 0755 directories; and a link planted where one will be.
    try FileManager.default.createDirectory(
      atPath: instances + "/old", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    chmod(instances, 0o755)
    let elsewhere = harness.path + "/elsewhere"
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: instances + "/linked", withDestinationPath: elsewhere)
    try harness.writeConfig(
      ["old", "fresh", "linked"].reduce(HubTOML()) {
        $0.probe($1, record: harness.path + "/\($1).jsonl", ports: [.event("seen", "integer")])
      })
    try harness.start()
    try harness.waitUntilRunning("old", "fresh")

    #expect(Self.mode(instances) == 0o700)
    #expect(Self.mode(instances + "/old") == 0o700)
    #expect(Self.mode(instances + "/fresh") == 0o700)
    let linked = try #require(try harness.instanceStatus("linked"))
    #expect(linked["phase"] as? String == "failed")
    #expect((linked["failure"] as? String)?.contains("is a symbolic link; refused") == true, "\(linked)")
    _ = try harness.process!.waitForLine(containing: "[linked] failed: the state directory", within: 30)
    // The link was not followed: its target got nothing, not even its mode changed.
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    #expect(Self.mode(elsewhere) == 0o755)
    try harness.stop()
  }
}
