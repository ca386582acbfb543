import ChildProcesses
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The demo's programs (simulators, hub) end with it, however it is ended. Ctrl-C reaches the
/// whole process group, but `kill PID` (SIGTERM) or a closed terminal (SIGHUP) reach the demo
/// alone and once left its programs running under init. On SIGTERM, SIGHUP or SIGINT the demo
/// stops each program it started (SIGTERM, SIGKILL after 10 s) and then exits by that signal's
/// status. Real handlers, not SIG_IGN: a spawned program gets its defaults back at exec.
enum DemoShutdown {
  private static let programs = Mutex<[ChildProcess]>([])
  private static let installed = Atomic(false)
  /// The handler only writes the signal's number here (async-signal-safe); a thread does the rest.
  nonisolated(unsafe) private static var wakeWrite: Int32 = -1

  static func track(_ program: ChildProcess) { programs.withLock { $0.append(program) } }

  static func install() {
    guard !installed.exchange(true, ordering: .relaxed) else { return }
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return }
    _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
    wakeWrite = ends[1]
    let wakeRead = ends[0]
    let waiter = Thread {
      var number: UInt8 = 0
      while read(wakeRead, &number, 1) < 0 && errno == EINTR {}
      end(by: Int32(number))
    }
    waiter.start()
    for number in [SIGTERM, SIGHUP, SIGINT] {
      signal(number) { number in
        var byte = UInt8(truncatingIfNeeded: number)
        _ = write(DemoShutdown.wakeWrite, &byte, 1)
      }
    }
  }

  private static func end(by number: Int32) {
    let running = programs.withLock { $0 }
    DispatchQueue.concurrentPerform(iterations: running.count) { index in
      _ = try? running[index].terminate(within: 10)
    }
    exit(128 + number)
  }
}
