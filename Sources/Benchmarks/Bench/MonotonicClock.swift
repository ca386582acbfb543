#if canImport(Glibc)
  import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: the clock the C probes stamp their messages with.
func monotonicNanos() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Polls `condition` every `interval` µs until it holds or `seconds` pass; false on timeout.
func waitFor(_ what: String, within seconds: Double, interval: UInt32 = 1000, _ condition: () -> Bool) throws -> Void {
  let deadline = monotonicNanos() + UInt64(seconds * 1e9)
  while !condition() {
    guard monotonicNanos() < deadline else { throw BenchError("timed out after \(Int(seconds)) s waiting for \(what)") }
    usleep(interval)
  }
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
