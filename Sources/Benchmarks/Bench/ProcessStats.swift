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

  /// CPU seconds of the process's live threads, in nanoseconds of run time from each
  /// thread's schedstat (/proc/PID/stat counts 10 ms clock ticks: too coarse for an idle hub).
  static func cpuSeconds(_ pid: Int32) -> Double? {
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
    var nanoseconds: UInt64 = 0
    for thread in threads {
      guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/schedstat", encoding: .utf8),
        let first = text.split(separator: " ").first, let value = UInt64(first)
      else { continue }
      nanoseconds += value
    }
    return Double(nanoseconds) / 1e9
  }
}
