import Foundation

/// Resident memory of a process on this machine, from /proc/PID/statm. Nil when it cannot be read:
/// another machine's hub, or a /proc that hides other users' processes (systemd's ProtectProc).
enum ProcessMemory {
  static func residentBytes(_ pid: Int32) -> Int? {
    guard pid > 0, let data = FileManager.default.contents(atPath: "/proc/\(pid)/statm") else { return nil }
    // "size resident shared ..." in pages.
    let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }
}
