import Dispatch
import PatchbayPluginKit
import Synchronization

/// An instance's last connection, when it was removed from the config (`retire`): an empty
/// retained payload on every topic it left retained (Home Assistant discovery configs, their
/// state and availability topics, its status topic), which removes them from the broker and
/// the entities from HA. Done when the broker acknowledged each one (QoS 1).
struct RetainedCleanup {
  let options: MosquittoClient.Options
  let maxPayloadBytes: Int
  let context: PluginContext

  /// Clears `topics`; throws when the broker did not take them within `seconds`.
  func clear(_ topics: [String], within seconds: Double = 30) throws {
    let waiting = Mutex<Set<Int32>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let lastProblem = Mutex("no answer")
    let events = MosquittoClient.Events(
      connected: { client in
        var ids: Set<Int32> = []
        for topic in topics {
          let message = Outbox.Message(topic: topic, payload: [], qos: 1, retain: true, latestOnly: false)
          if let id = client.send(message) { ids.insert(id) }
        }
        // Called on the loop thread, as the acknowledgements are: none is missed.
        let empty = waiting.withLock { waiting in
          waiting = ids
          return ids.isEmpty
        }
        if empty { done.signal() }
      },
      published: { id in
        let finished = waiting.withLock { waiting -> Bool in
          guard waiting?.remove(id) != nil else { return false }
          return waiting?.isEmpty == true
        }
        if finished { done.signal() }
      },
      disconnected: { reason in lastProblem.withLock { $0 = reason } },
      message: { _, _, _, _ in },
      log: { [context] level, message in context.log(level, message) })
    let client = try MosquittoClient(options: options, maxPayloadBytes: maxPayloadBytes, events: events)
    try client.start()
    let outcome = done.wait(timeout: .now() + seconds)
    client.stop(farewell: [])
    guard outcome == .success else {
      throw PluginError(
        .unavailable,
        "the broker \(options.host):\(options.port) did not take the \(topics.count) retained topics to clear within "
          + "\(Int(seconds)) s (\(lastProblem.withLock { $0 }))")
    }
  }
}
