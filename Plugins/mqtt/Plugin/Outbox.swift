import Synchronization

/// What is published to the broker, in order, across disconnections. While the broker is
/// away, messages wait here (a state topic keeps only its newest payload, events are kept up
/// to `capacity`) and go out in order once it accepts the connection again. A QoS 1/2 message
/// handed to libmosquitto stays counted here until the broker acknowledges it
/// (`acknowledged(mid)`); sending it again after a lost connection is libmosquitto's job (it
/// keeps it, with its id, and resends it first), not this queue's: both doing it delivered
/// each such message twice, the second copy after newer ones.
final class Outbox: Sendable {
  struct Message: Sendable {
    var topic: String
    var payload: [UInt8]
    var qos: Int32
    var retain: Bool
    /// Only the newest message for this topic matters (a state port).
    var latestOnly: Bool
  }

  /// Hands one message to the client: its message id, or nil when it was not taken.
  typealias Send = (Message) -> Int32?

  private struct State {
    var connected = false
    /// Sent, not yet acknowledged, by message id, oldest first.
    var unacknowledged: [(mid: Int32, message: Message)] = []
    var waiting: [Message] = []
    var dropped = 0
  }

  /// Messages kept while the broker is away.
  static let defaultCapacity = 10_000

  private let state = Mutex(State())
  private let capacity: Int

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// Publishes now if connected and nothing is waiting; otherwise (or when `send` does not
  /// take it) queues. Returns how many events were dropped so far because the queue was full.
  @discardableResult
  func post(_ message: Message, send: Send) -> Int {
    state.withLock { state in
      if state.connected && state.waiting.isEmpty, let mid = send(message) {
        if message.qos > 0 { state.unacknowledged.append((mid, message)) }
        return state.dropped
      }
      if message.latestOnly { state.waiting.removeAll { $0.latestOnly && $0.topic == message.topic } }
      if state.waiting.count + state.unacknowledged.count >= capacity,
        let oldest = state.waiting.firstIndex(where: { !$0.latestOnly })
      {
        state.waiting.remove(at: oldest)
        state.dropped += 1
      }
      state.waiting.append(message)
      return state.dropped
    }
  }

  /// The broker acknowledged message `mid`.
  func acknowledged(_ mid: Int32) {
    state.withLock { state in
      if let index = state.unacknowledged.firstIndex(where: { $0.mid == mid }) {
        state.unacknowledged.remove(at: index)
      }
    }
  }

  /// The connection is up: send what waits, in order, then publish directly. Returns how
  /// many messages went out.
  @discardableResult
  func connected(send: Send) -> Int {
    state.withLock { state in
      state.connected = true
      var sent = 0
      while let first = state.waiting.first, let mid = send(first) {
        state.waiting.removeFirst()
        if first.qos > 0 { state.unacknowledged.append((mid, first)) }
        sent += 1
      }
      return sent
    }
  }

  /// The connection is down: new messages wait. The unacknowledged ones stay with
  /// libmosquitto, which sends them again when the connection is back.
  func disconnected() {
    state.withLock { $0.connected = false }
  }

  var waitingCount: Int { state.withLock { $0.waiting.count } }
}
