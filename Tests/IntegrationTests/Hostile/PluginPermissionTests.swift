import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 29.11: a library planted in a folder others may write to (or a library file others
/// may change) is refused, by `check` and by the running hub, with the fix in the message.
@Suite(.serialized) struct PluginPermissionTests {
  static let config = HubTOML().instance("counter", plugin: "example-c")

  @Test func aLibraryInAWorldWritableFolderIsRefused() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.writeConfig(Self.config)
    #expect(try harness.check().status == 0)
    chmod(harness.pluginDirectory, 0o777)
    let check = try harness.check()
    #expect(check.status != 0)
    #expect(
      check.output.contains("the folder '\(harness.pluginDirectory)' is writable by anyone (mode 777)"),
      "\(check.output)")
    #expect(check.output.contains("chmod go-w \(harness.pluginDirectory)"), "\(check.output)")
    // The running hub refuses it as well: the instance fails with the reason, nothing runs it.
    try harness.start()
    try eventually("the instance is refused; log:\n\(harness.log)") {
      try harness.instanceStatus("counter")?["phase"] as? String == "failed"
    }
    #expect(harness.log.contains("chmod go-w \(harness.pluginDirectory)"), "\(harness.log)")
    try harness.stop()
  }

  @Test func aGroupWritableLibraryIsRefusedAndAStickyFolderIsNot() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.writeConfig(Self.config)
    let library =
      try FileManager.default.contentsOfDirectory(atPath: harness.pluginDirectory)
      .first { $0.contains("example-c") }.map { harness.pluginDirectory + "/" + $0 } ?? ""
    chmod(library, 0o775)
    let check = try harness.check()
    #expect(check.status != 0)
    #expect(check.output.contains("the file '\(library)' is writable by its group"), "\(check.output)")
    #expect(check.output.contains("chmod go-w \(library)"), "\(check.output)")
    // A sticky world-writable folder (as /tmp, where the tests' own folders live) is fine.
    chmod(library, 0o755)
    chmod(harness.pluginDirectory, 0o1777)
    let sticky = try harness.check()
    #expect(sticky.status == 0, "\(sticky.output)")
  }

  /// Issue 41: a library that belongs to someone else may be the attacker's own code: the
  /// refusal says to remove it (or reinstall it), never to chown it (which would approve it).
  @Test func aLibraryOfAnotherUserIsToBeRemovedNotApproved() throws {
    guard geteuid() == 0 else { return }  // only root can give a file away
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.writeConfig(Self.config)
    let library =
      try FileManager.default.contentsOfDirectory(atPath: harness.pluginDirectory)
      .first { $0.contains("example-c") }.map { harness.pluginDirectory + "/" + $0 } ?? ""
    #expect(chown(library, 4242, 4242) == 0)
    let check = try harness.check()
    #expect(check.status != 0)
    #expect(check.output.contains("the file '\(library)' belongs to uid 4242"), "\(check.output)")
    #expect(check.output.contains("do not chown it to make it load"), "\(check.output)")
    #expect(check.output.contains("rm \(library)"), "\(check.output)")
    #expect(!check.output.contains("chown 0"), "\(check.output)")
  }

  /// Issue 41, item 6: outside systemd, `check` says that an instance's limits are per process.
  @Test func checkSaysWhenLimitsAreOnlyPerProcess() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.writeConfig(Self.config)
    let check = try harness.check()
    #expect(check.status == 0, "\(check.output)")
    let note = "note: outside systemd (as here) a hub gives each instance rlimits only"
    let underSystemd = ProcessInfo.processInfo.environment["INVOCATION_ID"] != nil
    #expect(check.output.contains(note) != underSystemd, "\(check.output)")
  }
}
