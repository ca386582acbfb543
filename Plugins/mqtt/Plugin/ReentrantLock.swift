import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A lock the thread holding it may take again (Foundation's NSRecursiveLock, without
/// Foundation): libmosquitto can log from inside one of its own callbacks, on a thread that is
/// already inside `MosquittoClient.event`.
final class ReentrantLock: Sendable {
  private let mutex = Mutex<Void>(())
  /// The holding thread; 0 when none. Only the holder ever finds its own id here.
  private let holder = Atomic<UInt>(0)

  func withLock(_ body: () -> Void) {
    let me = UInt(pthread_self())
    if holder.load(ordering: .relaxed) == me { return body() }
    mutex.withLock { _ in
      holder.store(me, ordering: .relaxed)
      defer { holder.store(0, ordering: .relaxed) }
      body()
    }
  }
}
