import Foundation

/// Runs blocking test work (waiting on a child process, a socket) on a thread of its own: a
/// server under test in the test process needs the cooperative pool, which has only as
/// many threads as cores (2 on the test machines).
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}
