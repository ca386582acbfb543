import Foundation
import PatchbayCore
import Synchronization

/// The one long-lived thread that spawns every plugin host. Linux delivers a child's
/// parent-death signal when the *thread* that spawned it ends, not the process: a host spawned
/// from a control-connection thread or a Dispatch worker was killed seconds later, when that
/// thread ended (`patchbay restart` and reload killed the new process). This thread lives as
/// long as the hub, so the signal means what it says: the hub is gone.
final class SpawnThread: Sendable {
  static let shared = SpawnThread()

  private let jobs = Mutex<[@Sendable () -> Void]>([])
  private let wakeup = DispatchSemaphore(value: 0)

  private init() {
    let thread = Thread { [self] in serve() }
    thread.name = "patchbay-spawner"
    thread.start()
  }

  /// Runs `body` on the spawner thread and returns its result.
  func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
    let done = DispatchSemaphore(value: 0)
    let box = Outcome<Result>()
    jobs.withLock {
      $0.append {
        box.value.withLock { $0 = body() }
        done.signal()
      }
    }
    wakeup.signal()
    done.wait()
    return box.value.withLock { $0! }
  }

  private func serve() {
    while true {
      wakeup.wait()
      let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
      job?()
    }
  }
}

private final class Outcome<Value: Sendable>: Sendable {
  let value = Mutex<Value?>(nil)
}
