import HAPDiscovery
import Logging
import Synchronization

/// The bridge's mDNS advertisement, once the port is known; the pairing state (on the server's
/// tasks) flips its TXT `sf`. Each change of either is told to `discovery` (the instance's
/// `discovery` output, the PEER column of `patchbay status`).
final class Advertisement: Sendable {
  private struct Current {
    var advertiser: HAPAdvertiser?
    var watcher: Task<Void, Never>?
    var state = HAPAdvertiser.State.stopped
    var isPaired = false
    /// Stopped: the instance is stopping, so nothing more is told (its outputs are closing).
    var ended = false
  }
  private let current = Mutex(Current())
  private let discovery: @Sendable (String) -> Void

  init(discovery: @escaping @Sendable (String) -> Void) { self.discovery = discovery }

  func start(name: String, port: Int, txt: HAPTXTRecord, logger: Logger) {
    let started = HAPAdvertiser(name: name, port: port, txt: txt, logger: logger)
    let changes = started.stateChanges
    let watcher = Task { [weak self] in
      for await state in changes { self?.update { $0.state = state } }
    }
    update {
      $0.advertiser = started
      $0.watcher = watcher
      $0.isPaired = !txt.discoverable
    }
    started.start()
  }

  /// `sf` is 1 while unpaired, 0 once paired.
  func pairingChanged(isPaired: Bool) {
    update { $0.isPaired = isPaired }
    guard let advertiser = current.withLock({ $0.advertiser }) else { return }
    var txt = advertiser.txt
    guard txt.discoverable == isPaired else { return }
    txt.discoverable = !isPaired
    advertiser.update(txt: txt)
  }

  func stop() {
    let (advertiser, watcher) = current.withLock { current in
      defer { (current.advertiser, current.watcher, current.ended) = (nil, nil, true) }
      return (current.advertiser, current.watcher)
    }
    watcher?.cancel()
    advertiser?.stop()
  }

  /// Changes the state and tells it, under the lock, so two changes are told in their order.
  private func update(_ change: (inout Current) -> Void) {
    current.withLock { current in
      guard !current.ended else { return }
      let before = Self.describe(current.state, isPaired: current.isPaired)
      change(&current)
      let after = Self.describe(current.state, isPaired: current.isPaired)
      if after != before || current.state == .stopped { discovery(after) }
    }
  }

  /// How Home finds the bridge, for a person reading `patchbay status`.
  static func describe(_ state: HAPAdvertiser.State, isPaired: Bool) -> String {
    switch state {
    case .advertising: return isPaired ? "advertised (paired)" : "advertised (unpaired)"
    case .registering: return "registering with avahi-daemon"
    case .waitingForResponder: return "not advertised: no mDNS responder (install avahi-daemon)"
    case .failed(let reason): return "not advertised: \(reason)"
    case .stopped: return "not advertised"
    }
  }
}
