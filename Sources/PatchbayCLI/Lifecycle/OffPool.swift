// What this file holds: `offPool`, the bridge from the lifecycle's async services to the
// hub's blocking calls (start, stop, reload), each on a thread of its own.
import Foundation

/// Runs blocking work (plugin processes starting or stopping, a reload waiting on a slow
/// plugin) on a thread of its own, so it never holds one of Swift concurrency's few pool
/// threads while the other services go on.
func offPool<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}
