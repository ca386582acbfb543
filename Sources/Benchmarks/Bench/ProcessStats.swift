import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What /proc says about a process: resident memory and CPU time.
enum ProcessStats {
  /// VmRSS in MiB, nil when the process is gone.
  static func rssMiB(_ pid: Int32) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      if fields.count >= 2, let kb = Double(fields[1]) { return kb / 1024 }
    }
    return nil
  }

  /// User plus system CPU seconds of the whole process (all threads).
  static func cpuSeconds(_ pid: Int32) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    // Fields after "(comm)": state is field 3, utime 14, stime 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }
}
