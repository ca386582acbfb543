#if canImport(Glibc)
  import Glibc
#endif

/// The threads of this process, from /proc/self/task: how the checker sees threads a plugin
/// left running after stop() and destroy().
struct ThreadCensus: Sendable {
  /// Thread id and name (`comm`, at most 15 bytes).
  var threads: [Int32: String]

  static func take() -> ThreadCensus {
    var threads: [Int32: String] = [:]
    guard let directory = opendir("/proc/self/task") else { return ThreadCensus(threads: [:]) }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      guard let id = Int32(name) else { continue }
      threads[id] = Self.comm(of: name)
    }
    return ThreadCensus(threads: threads)
  }

  /// Threads here that were not in `baseline` and are not libdispatch's worker pool: the pool
  /// belongs to the runtime (the host's queues, Swift concurrency), not to the plugin, and its
  /// workers name themselves after their root queue ("com.apple.root.default-qos...").
  func added(since baseline: ThreadCensus) -> [String] {
    addedThreads(since: baseline).map { "\($0.value) (tid \($0.key))" }
  }

  /// The thread ids of `added(since:)`.
  func addedIDs(since baseline: ThreadCensus) -> [Int32] { addedThreads(since: baseline).map(\.key) }

  private func addedThreads(since baseline: ThreadCensus) -> [(key: Int32, value: String)] {
    threads.filter { baseline.threads[$0.key] == nil && !$0.value.contains("qos") }.sorted { $0.key < $1.key }
  }

  private static func comm(of task: String) -> String {
    guard let file = fopen("/proc/self/task/\(task)/comm", "r") else { return "?" }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 64)
    guard fgets(&buffer, 64, file) != nil else { return "?" }
    return String(decoding: buffer.prefix(while: { $0 != 0 && $0 != 10 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
