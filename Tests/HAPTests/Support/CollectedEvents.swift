import HAP
import PatchbayTestSupport
import Synchronization

/// A session's events collected as they arrive, for tests to wait on.
final class CollectedEvents: Sendable {
  private let values = Mutex<[HAPCharacteristicValue]>([])
  private let ended = Mutex(false)

  init(_ session: HAPClientSession) {
    let stream = session.events
    Task { [self] in
      for await value in stream { values.withLock { $0.append(value) } }
      ended.withLock { $0 = true }
    }
  }

  var all: [HAPCharacteristicValue] { values.withLock { $0 } }
  /// The connection closed (the stream finished).
  var hasEnded: Bool { ended.withLock { $0 } }

  /// Waits until the events so far satisfy `condition`.
  func waitFor(
    _ what: String, within seconds: Double = 120, _ condition: @escaping @Sendable ([HAPCharacteristicValue]) -> Bool
  ) async throws {
    try await offPool { [self] in
      try eventually("\(what); events: \(all)", within: seconds) { condition(all) }
    }
  }
}
