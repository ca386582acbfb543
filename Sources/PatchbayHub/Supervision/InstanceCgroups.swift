import Foundation
import Logging
import PatchbayCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A cgroup v2 per instance, where the hub was given a cgroup tree of its own (systemd's
/// `Delegate=yes`): `memory.max`, `pids.max` and `cpu.weight` count everything an instance
/// starts (rlimits count one process), and `cgroup.kill` ends even a descendant that left its
/// session and cleared its environment. Layout: the hub moves itself into `ROOT/hub` (a cgroup
/// with controllers for its children may hold no process itself); instance NAME lives in
/// `ROOT/instances/NAME`. Outside such a tree the hosts' rlimits are all there is.
final class InstanceCgroups: Sendable {
  let root: String
  /// The controllers instances get (those the delegated tree offers of memory, pids, cpu).
  let controllers: Set<String>

  private init(root: String, controllers: Set<String>) {
    self.root = root
    self.controllers = controllers
  }

  /// Decided once, at the first instance's start, and logged then.
  static let shared: InstanceCgroups? = detect()

  private static let logger = Logger(label: "cgroups")

  /// Why instances run without cgroups here (for status), or nil when they have them.
  static var unavailableReason: String? { shared == nil ? detectionOutcome.withLock { $0 } : nil }
  private static let detectionOutcome = Mutex<String?>(nil)

  func directory(of instance: String) -> String { root + "/instances/" + instance }

  /// Creates the instance's cgroup with its limits and moves `pid` (a just spawned host that
  /// has not loaded its plugin yet) into it; nil when that failed, with the reason logged.
  func place(_ pid: pid_t, instance: String, settings: SupervisionSettings) -> String? {
    let directory = directory(of: instance)
    guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
      Self.logger.error("cannot create cgroup \(directory): \(String(cString: strerror(errno)))")
      return nil
    }
    var limits: [(String, String)] = []
    if controllers.contains("memory") {
      limits.append(("memory.max", String(settings.memoryMaxMB * 1_048_576)))
      // Not around the limit through swap.
      limits.append(("memory.swap.max", "0"))
    }
    if controllers.contains("pids") { limits.append(("pids.max", String(settings.pidsMax))) }
    if controllers.contains("cpu") { limits.append(("cpu.weight", String(settings.cpuWeight))) }
    for (file, value) in limits where FileManager.default.fileExists(atPath: directory + "/" + file) {
      if !Self.write(value, to: directory + "/" + file) {
        Self.logger.warning("cannot set \(file) of \(directory): \(String(cString: strerror(errno)))")
      }
    }
    guard Self.write(String(pid), to: directory + "/cgroup.procs") else {
      Self.logger.error("cannot move process \(pid) into \(directory): \(String(cString: strerror(errno)))")
      return nil
    }
    return directory
  }

  /// What status shows for an instance in `directory`.
  func description(of directory: String, settings: SupervisionSettings) -> String {
    var limits: [String] = []
    if controllers.contains("memory") { limits.append("memory.max \(settings.memoryMaxMB) MB") }
    if controllers.contains("pids") { limits.append("pids.max \(settings.pidsMax)") }
    if controllers.contains("cpu") { limits.append("cpu.weight \(settings.cpuWeight)") }
    return "cgroup \(directory)"
      + (limits.isEmpty ? " (no resource controllers delegated)" : " (\(limits.joined(separator: ", ")))")
  }

  /// Kills everything left in the instance's cgroup (its host has ended), waits until the
  /// cgroup is empty and reaps what was reparented to the hub. How many processes it killed.
  func killAll(in directory: String) -> Int {
    let pids = Self.read(directory + "/cgroup.procs")?.split(separator: "\n").compactMap { pid_t($0) } ?? []
    guard !pids.isEmpty else { return 0 }
    guard Self.write("1", to: directory + "/cgroup.kill") else {
      Self.logger.warning("cannot write \(directory)/cgroup.kill: \(String(cString: strerror(errno)))")
      return 0
    }
    Self.waitUntilEmpty(directory, within: 10)
    // Orphans of the killed are reparented to the hub (a subreaper): reap them.
    for pid in pids {
      var status: Int32 = 0
      _ = waitpid(pid, &status, WNOHANG)
    }
    return pids.count
  }

  /// Waits for `populated 0` in cgroup.events (inotify tells of each change of it).
  private static func waitUntilEmpty(_ directory: String, within seconds: Int32) {
    let events = directory + "/cgroup.events"
    let notify = inotify_init1(Int32(IN_CLOEXEC))
    defer { if notify >= 0 { close(notify) } }
    if notify >= 0 { _ = inotify_add_watch(notify, events, UInt32(IN_MODIFY)) }
    let deadline = Date().addingTimeInterval(Double(seconds))
    while read(events)?.contains("populated 1") == true {
      let left = Int32(deadline.timeIntervalSinceNow * 1000)
      guard left > 0, notify >= 0 else { return }
      var descriptor = pollfd(fd: notify, events: Int16(POLLIN), revents: 0)
      if poll(&descriptor, 1, left) > 0 {
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = Glibc.read(notify, &buffer, buffer.count)
      }
    }
  }

  // MARK: Detection

  private static func detect() -> InstanceCgroups? {
    let (cgroups, reason) = setUp()
    detectionOutcome.withLock { $0 = reason }
    if let reason { logger.notice("instances run without cgroups (per-process rlimits only): \(reason)") }
    return cgroups
  }

  private static func setUp() -> (InstanceCgroups?, String?) {
    let environment = ProcessInfo.processInfo.environment
    let root: String
    if let given = environment["PATCHBAY_CGROUP"], !given.isEmpty {
      // A cgroup tree handed over by whatever started the hub other than systemd (and tests).
      guard mkdir(given, 0o755) == 0 || errno == EEXIST else {
        return (nil, "cannot create PATCHBAY_CGROUP \(given): \(String(cString: strerror(errno)))")
      }
      root = given
    } else {
      guard environment["INVOCATION_ID"] != nil else { return (nil, "not a systemd service") }
      guard let own = ownCgroup() else { return (nil, "no cgroup v2 hierarchy") }
      root = own
    }
    guard access(root, W_OK) == 0, access(root + "/cgroup.procs", W_OK) == 0,
      access(root + "/cgroup.subtree_control", W_OK) == 0
    else { return (nil, "cgroup \(root) is not delegated to the hub's user (Delegate=yes in the unit)") }
    // The tree must be the hub's alone: never take over a cgroup others run in.
    let others = (read(root + "/cgroup.procs") ?? "").split(separator: "\n").filter { $0 != "\(getpid())" }
    guard others.isEmpty else { return (nil, "cgroup \(root) holds other processes than the hub") }
    let leaf = root + "/hub"
    guard mkdir(leaf, 0o755) == 0 || errno == EEXIST, write(String(getpid()), to: leaf + "/cgroup.procs") else {
      return (nil, "cannot move the hub into \(leaf): \(String(cString: strerror(errno)))")
    }
    let offered = Set((read(root + "/cgroup.controllers") ?? "").split(whereSeparator: \.isWhitespace).map(String.init))
    var controllers = offered.intersection(["memory", "pids", "cpu"])
    let instances = root + "/instances"
    let enable = controllers.sorted().map { "+" + $0 }.joined(separator: " ")
    if mkdir(instances, 0o755) != 0 && errno != EEXIST {
      return (nil, "cannot create \(instances): \(String(cString: strerror(errno)))")
    }
    if !controllers.isEmpty,
      !write(enable, to: root + "/cgroup.subtree_control") || !write(enable, to: instances + "/cgroup.subtree_control")
    {
      logger.warning("cannot enable \(enable) for \(instances): \(String(cString: strerror(errno)))")
      controllers = []
    }
    let missing = Set(["memory", "pids", "cpu"]).subtracting(controllers).sorted()
    let note = missing.isEmpty ? "" : " (not delegated here: \(missing.joined(separator: ", ")); no limits of those)"
    logger.notice("instances run in cgroups under \(instances)\(note)")
    return (InstanceCgroups(root: root, controllers: controllers), nil)
  }

  /// This process's cgroup v2 directory: /proc/self/cgroup's `0::PATH` under the cgroup2 mount.
  private static func ownCgroup() -> String? {
    guard let line = read("/proc/self/cgroup")?.split(separator: "\n").first(where: { $0.hasPrefix("0::") }),
      let mounts = read("/proc/self/mountinfo")
    else { return nil }
    let path = String(line.dropFirst(3))
    for mount in mounts.split(separator: "\n") {
      let halves = mount.components(separatedBy: " - ")
      guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
      let fields = halves[0].split(separator: " ")
      guard fields.count > 4, fields[3] == "/" else { continue }
      return String(fields[4]) + (path == "/" ? "" : path)
    }
    return nil
  }

  private static func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

  /// One write(2) of `text`, as cgroup files want it.
  private static func write(_ text: String, to path: String) -> Bool {
    let descriptor = open(path, O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    let bytes = Array(text.utf8)
    return Glibc.write(descriptor, bytes, bytes.count) == bytes.count
  }
}
