import Dispatch
import Synchronization

/// The plugin's start and stop are synchronous (the C ABI's), the HAP server's are async: these
/// wait for one async call on the calling thread (the plugin context, never a Swift task).
enum AsyncBridge {
  static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      let result: Result<T, any Error>
      do { result = .success(try await body()) } catch { result = .failure(error) }
      outcome.withLock { $0 = result }
      done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
  }

  static func wait(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
      await body()
      done.signal()
    }
    done.wait()
  }
}
