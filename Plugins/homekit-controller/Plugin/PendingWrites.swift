import HAP
import PatchbayValues
import Synchronization

/// Writes waiting for the accessory: the latest value per characteristic (a newer command
/// replaces an older one not yet sent), kept while the accessory is away and sent on reconnect.
/// The connected writer is woken through the stream of its connection.
package final class PendingWrites: Sendable {
  private struct State {
    var values: [HAPCharacteristicID: JSONValue] = [:]
    /// First-written order, so a light's On goes before its Brightness.
    var order: [HAPCharacteristicID] = []
    var wake: AsyncStream<Void>.Continuation?
  }

  private let state = Mutex(State())

  package init() {}

  package func add(_ writes: [HAPWrite]) {
    let wake = state.withLock { state in
      for write in writes {
        if state.values.updateValue(write.value, forKey: write.id) == nil { state.order.append(write.id) }
      }
      return state.wake
    }
    wake?.yield()
  }

  /// Everything waiting, in order, now owned by the caller.
  package func take() -> [HAPWrite] {
    state.withLock { state in
      defer {
        state.values = [:]
        state.order = []
      }
      return state.order.compactMap { id in state.values[id].map { HAPWrite(id: id, value: $0) } }
    }
  }

  /// Puts back what could not be sent, unless a newer value came meanwhile.
  package func restore(_ writes: [HAPWrite]) {
    state.withLock { state in
      for write in writes.reversed() where state.values[write.id] == nil {
        state.values[write.id] = write.value
        state.order.insert(write.id, at: 0)
      }
    }
  }

  /// A stream that yields once now and whenever a write is added, until the next `wakes()`.
  package func wakes() -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let old = state.withLock { state in
      defer { state.wake = continuation }
      return state.wake
    }
    old?.finish()
    continuation.yield()
    return stream
  }

  package func endWakes() {
    state.withLock { state in
      defer { state.wake = nil }
      return state.wake
    }?.finish()
  }
}
