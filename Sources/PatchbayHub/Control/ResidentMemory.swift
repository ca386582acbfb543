import Foundation
import PatchbayCore

/// Resident memory of the hub and its plugin hosts, for the `status` answer. The hub reads it
/// because it can: its own /proc entry and its children's. patchbay-web runs in a user namespace
/// of its own under the shipped units (`PrivateUsers=yes`), where the hub's /proc entry does
/// not exist, so it takes the figures from here.
enum ResidentMemory {
  /// From /proc/PID/statm ("size resident shared ..." in pages); nil when it cannot be read.
  static func bytes(of pid: Int32) -> Int? {
    guard pid > 0, let data = FileManager.default.contents(atPath: "/proc/\(pid)/statm") else { return nil }
    let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  /// `status` with the hub's and each running instance's figure filled in.
  static func added(to status: HubStatus) -> HubStatus {
    var status = status
    status.residentBytes = bytes(of: status.pid)
    for index in status.instances.indices {
      status.instances[index].residentBytes = status.instances[index].pid.flatMap(bytes(of:))
    }
    return status
  }
}
