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

  /// CPU seconds each process spent over the next `seconds`, and how often its threads were
  /// scheduled (wake-ups), thread by thread. Summing the live threads at both ends undercounts,
  /// even below zero: a thread that ends within the window (Dispatch retires idle worker
  /// threads after a few seconds) takes its whole past out of the sum. Each thread's schedstat
  /// (run time, times run) is sampled every `step` instead; one that ends loses at most its
  /// last step, one that begins counts from zero.
  static func cpuSeconds(of pids: [Int32], over seconds: Double, step: Double = 0.25) -> [Int32: (
    seconds: Double, wakeUps: Int
  )] {
    func threads(_ pid: Int32) -> [String: (UInt64, UInt64)] {
      var times: [String: (UInt64, UInt64)] = [:]
      for thread in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/schedstat", encoding: .utf8)
        else { continue }
        let fields = text.split(separator: " ").map { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard fields.count >= 3, let runNanoseconds = fields[0], let runs = fields[2] else { continue }
        times[thread] = (runNanoseconds, runs)
      }
      return times
    }
    let first = Dictionary(uniqueKeysWithValues: pids.map { ($0, threads($0)) })
    var last = first
    let end = monotonicNanos() + UInt64(seconds * 1e9)
    while monotonicNanos() < end {
      let left = Double(end - min(end, monotonicNanos())) / 1e9
      usleep(UInt32(min(step, left) * 1e6))
      for pid in pids { last[pid, default: [:]].merge(threads(pid)) { _, new in new } }
    }
    return Dictionary(
      uniqueKeysWithValues: pids.map { pid in
        var (nanoseconds, runs): (UInt64, UInt64) = (0, 0)
        for (thread, now) in last[pid] ?? [:] {
          let before = first[pid]?[thread] ?? (0, 0)
          nanoseconds += now.0 - min(now.0, before.0)
          runs += now.1 - min(now.1, before.1)
        }
        return (pid, (Double(nanoseconds) / 1e9, Int(runs)))
      })
  }

  /// User + system CPU seconds of the whole process, live and ended threads alike (utime and
  /// stime of /proc/PID/stat, in clock ticks): what a flood cost it.
  static func cpuTicksSeconds(_ pid: Int32) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    // Fields after "(comm)": state is field 3, utime 14, stime 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// Resident and proportional set size in MiB from /proc/PID/smaps_rollup: PSS splits each
  /// shared page (the Swift runtime mapped by every plugin host) among the processes that map it.
  static func memory(_ pid: Int32) -> (rss: Double, pss: Double)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return nil }
    var values: [String: Double] = [:]
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      if fields.count >= 2, let kb = Double(fields[1]) { values[String(fields[0])] = kb / 1024 }
    }
    guard let rss = values["Rss:"], let pss = values["Pss:"] else { return nil }
    return (rss, pss)
  }

  /// The `count` mappings (by file name, or [heap], [anon]) with the most resident memory, in
  /// MiB, from /proc/PID/smaps: what a process's RSS is made of.
  static func largestMappings(_ pid: Int32, count: Int = 5) -> [(name: String, rss: Double)] {
    // Read to the end: /proc files report size 0, and smaps is larger than one read.
    guard let data = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps")?.readDataToEndOfFile() else { return [] }
    let text = String(decoding: data, as: UTF8.self)
    var byName: [String: Double] = [:]
    var current = "[anon]"
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard let first = fields.first else { continue }
      if first.contains("-") && fields.count >= 5 {
        current =
          fields.count >= 6 ? String(fields[5...].joined(separator: " ").split(separator: "/").last ?? "") : "[anon]"
      } else if first == "Rss:", fields.count >= 2, let kb = Double(fields[1]) {
        byName[current, default: 0] += kb / 1024
      }
    }
    return byName.sorted { $0.value > $1.value }.prefix(count).map { ($0.key, $0.value) }
  }

  /// "libswiftCore.so 3.1, [heap] 2.0, ..." (MiB).
  static func describe(_ mappings: [(name: String, rss: Double)]) -> String {
    mappings.map { "\($0.name) \(String(format: "%.1f", $0.rss))" }.joined(separator: ", ") + " MiB"
  }
}
