import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The thread a `SystemBus` runs its loop on, while it runs: what `BusConfined` checks against.
public final class BusThread: Sendable {
  /// The loop thread's pthread_t (an integer on Linux); 0 when no loop runs.
  private let current = Atomic<UInt>(0)

  public init() {}

  /// True on the loop's thread while the loop runs.
  public var isCurrent: Bool {
    let id = current.load(ordering: .acquiring)
    return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
  }

  func enter() { current.store(UInt(pthread_self()), ordering: .releasing) }

  func leave() { current.store(0, ordering: .releasing) }
}

/// A value that only the bus thread touches (its callbacks, timers and `perform` bodies), shared
/// as `Sendable` so that closures can carry it there. The one thread-confinement boundary of the
/// BlueZ layer: the compiler cannot see the bus thread, so every access checks it at run time
/// and traps anywhere else.
public final class BusConfined<Value>: @unchecked Sendable {  // Confined to the bus thread, checked per access.
  private let thread: BusThread
  private var stored: Value

  /// `value` moves to the bus thread: nothing else may keep it.
  public init(_ value: sending Value, on thread: BusThread) {
    self.thread = thread
    stored = value
  }

  public convenience init(_ value: sending Value, on bus: SystemBus) { self.init(value, on: bus.thread) }

  /// The value; on the bus thread only.
  public var value: Value {
    get {
      check()
      return stored
    }
    _modify {
      check()
      yield &stored
    }
  }

  private func check() {
    precondition(thread.isCurrent, "BusConfined: touched off the bus thread")
  }
}
