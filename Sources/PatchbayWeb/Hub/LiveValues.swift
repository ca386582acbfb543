import Foundation
import PatchbayHub
import Synchronization

/// What the page's live stream carries.
enum LiveEvent: Sendable, Equatable {
  /// `INSTANCE.PORT VALUE`, as `patchbay watch` prints it.
  case value(String)
  /// Whether the hub is reachable (sent on every change, and first to every new subscriber).
  case hub(up: Bool)
}

/// One `watch` connection to the hub, shared by every browser: keeps the last value of every
/// port it has seen (seeded with the hub's retained state values) and hands each line to the
/// subscribers. When the hub goes away it reconnects with back-off (0.5 s doubling to 10 s).
final class LiveValues: Sendable {
  private struct State {
    var last: [String: String] = [:]
    var hubUp = false
    var subscribers: [UUID: AsyncStream<LiveEvent>.Continuation] = [:]
    var closing = false
  }

  let hub: HubClient
  /// Given every value as it arrives (not the seeded ones), on the watch thread: the history.
  let history: HistoryFeed?
  private let state = Mutex(State())

  init(hub: HubClient, history: HistoryFeed? = nil) {
    self.hub = hub
    self.history = history
  }

  /// Follows the hub for the life of the process.
  func start() {
    Task { await followHub() }
  }

  var hubUp: Bool { state.withLock { $0.hubUp } }

  /// The last value seen of every port, by address.
  var lastValues: [String: String] { state.withLock { $0.last } }

  /// A stream of events for one browser, starting with the hub's state; a browser that reads
  /// too slowly loses its oldest events rather than holding anything up. It ends after
  /// `lifetime` (the browser reconnects and catches up), so a half-dead connection holds nothing
  /// for long, and at once when the process shuts down.
  func subscribe(lifetime: Duration) -> AsyncStream<LiveEvent> {
    let id = UUID()
    let (stream, continuation) = AsyncStream.makeStream(of: LiveEvent.self, bufferingPolicy: .bufferingNewest(1000))
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
    let (up, closing) = state.withLock { state in
      if !state.closing { state.subscribers[id] = continuation }
      return (state.hubUp, state.closing)
    }
    if closing {
      continuation.finish()
      return stream
    }
    continuation.yield(.hub(up: up))
    Task {
      try? await Task.sleep(for: lifetime)
      continuation.finish()
    }
    return stream
  }

  /// Ends every stream (shutdown: the HTTP server waits for open responses to end).
  func finishAll() {
    let all = state.withLock { state in
      state.closing = true
      return Array(state.subscribers.values)
    }
    for continuation in all { continuation.finish() }
  }

  private func publish(_ event: LiveEvent) {
    let targets = state.withLock { state -> [AsyncStream<LiveEvent>.Continuation] in
      switch event {
      case .value(let line):
        if let space = line.firstIndex(of: " ") {
          state.last[String(line[..<space])] = String(line[line.index(after: space)...])
        }
      case .hub(let up): state.hubUp = up
      }
      return Array(state.subscribers.values)
    }
    for continuation in targets { continuation.yield(event) }
  }

  /// Connects, follows the hub until it goes away, and tries again after a back-off.
  private func followHub() async {
    var delay = Duration.milliseconds(500)
    while true {
      if await watchOnOwnThread() { delay = .milliseconds(500) }
      if hubUp { publish(.hub(up: false)) }
      // Back-off between attempts: the hub may be restarting or stopped for a while.
      try? await Task.sleep(for: delay)
      delay = min(delay * 2, .seconds(10))
    }
  }

  /// One connection, on a thread of its own (the control client blocks); whether it reached the hub.
  private func watchOnOwnThread() async -> Bool {
    await withCheckedContinuation { continuation in
      let thread = Thread { [self] in continuation.resume(returning: watchHub()) }
      thread.name = "patchbay-web-watch"
      thread.start()
    }
  }

  private func watchHub() -> Bool {
    // A hub older than protocol 2 refuses `values` but is up: then nothing is seeded.
    guard let seeded = try? ControlClient.request(ControlRequest(command: .values), socket: hub.socket) else {
      return false
    }
    state.withLock { state in
      for entry in seeded.values ?? [] where state.last[entry.address] == nil {
        state.last[entry.address] = entry.value
      }
    }
    publish(.hub(up: true))
    history?.hubConnected()
    try? ControlClient.watch(pattern: "*", socket: hub.socket) { line in
      guard !line.hasPrefix("#") else { return }
      history?.observe(line)
      publish(.value(line))
    }
    return true
  }
}
