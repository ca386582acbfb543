import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Each instance in a cgroup of its own, where the hub has a cgroup v2 tree to itself (under
/// systemd, `Delegate=yes`; here a tree handed over through PATCHBAY_CGROUP, as root): what a
/// plugin starts cannot outlive its instance, even after its host was SIGKILLed and with its
/// environment cleared (no marker left to find it by).
@Suite(.serialized) struct CgroupTests {
  /// A writable cgroup2 mount (this machine's hybrid layout has one at /sys/fs/cgroup/unified).
  static let cgroup2Mount: String? = {
    guard let mounts = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
    for mount in mounts.split(separator: "\n") {
      let halves = mount.components(separatedBy: " - ")
      guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
      let fields = halves[0].split(separator: " ")
      if fields.count > 4, fields[3] == "/", access(String(fields[4]), W_OK) == 0 { return String(fields[4]) }
    }
    return nil
  }()

  static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  static func procs(_ directory: String) -> Set<Int32> {
    Set(read(directory + "/cgroup.procs").split(separator: "\n").compactMap { Int32($0) })
  }

  /// The tree a test handed to its hub, removed deepest first once nothing runs in it.
  static func remove(_ root: String) throws {
    try eventually("\(root) removed") {
      let instances = (try? FileManager.default.contentsOfDirectory(atPath: root + "/instances")) ?? []
      for name in instances where !name.contains(".") { rmdir(root + "/instances/" + name) }
      for directory in [root + "/instances", root + "/hub", root] { rmdir(directory) }
      return !FileManager.default.fileExists(atPath: root)
    }
  }

  @Test(.enabled(if: cgroup2Mount != nil && geteuid() == 0, "needs a writable cgroup2 mount (root)"))
  func whatAPluginStartsDiesWithItsCgroupEvenAfterItsHostWasKilled() throws {
    let root = try #require(Self.cgroup2Mount) + "/patchbay-it-\(UUID().uuidString)"
    defer { try? Self.remove(root) }
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "hostile", source: HostilePlugin.source, defines: ["-lpthread"])
    let marker = "cgroup-\(UUID().uuidString)"
    try harness.writeConfig(
      HubTOML()
        .instance(
          "bad", plugin: "hostile", ["mode": "fork", "marker": "\(marker)", "backoff_initial_ms": 100, "pids_max": 64]))
    try harness.start(environment: ["PATCHBAY_CGROUP": root])
    try harness.waitUntilRunning("bad")
    let hub = harness.process!
    // The hub left the tree's top for a leaf of its own; the instance has its own cgroup.
    #expect(Self.procs(root + "/hub").contains(hub.pid))
    let status = try #require(try harness.instanceStatus("bad"))
    #expect((status["containment"] as? String)?.hasPrefix("cgroup \(root)/instances/bad") == true)
    try eventually("the escaped grandchild runs") { ContainmentTests.marked(marker).count == 1 }
    let escaped = ContainmentTests.marked(marker)
    let host = try #require(try harness.pid(of: "bad"))
    #expect(Self.procs(root + "/instances/bad").isSuperset(of: Set(escaped + [host])))

    // The host dies by SIGKILL: it cannot take the grandchild along, and the grandchild carries
    // no marker of the instance; its cgroup still holds it.
    kill(host, SIGKILL)
    try eventually("the escaped grandchild of the killed host is gone; log:\n\(harness.log)") {
      escaped.allSatisfy { !HubUnderTest.isAlive($0) }
    }
    // Restarted into the same cgroup, which holds nothing of the old process.
    try eventually("restarted") { (try harness.pid(of: "bad")).map { $0 != host } ?? false }
    #expect(Self.procs(root + "/instances/bad").isDisjoint(with: Set(escaped + [host])))
    try harness.stop()
    try eventually("nothing left in the instance's cgroup after the hub stopped") {
      Self.procs(root + "/instances/bad").isEmpty
    }
  }
}
