import HAPDiscovery
import Logging
import Synchronization

/// The bridge's mDNS advertisement, once the port is known; the pairing state (on the server's
/// tasks) flips its TXT `sf`.
final class Advertisement: Sendable {
  private let advertiser = Mutex<HAPAdvertiser?>(nil)

  func start(name: String, port: Int, txt: HAPTXTRecord, logger: Logger) {
    let started = HAPAdvertiser(name: name, port: port, txt: txt, logger: logger)
    advertiser.withLock { $0 = started }
    started.start()
  }

  /// `sf` is 1 while unpaired, 0 once paired.
  func pairingChanged(isPaired: Bool) {
    guard let advertiser = advertiser.withLock({ $0 }) else { return }
    var txt = advertiser.txt
    guard txt.discoverable == isPaired else { return }
    txt.discoverable = !isPaired
    advertiser.update(txt: txt)
  }

  func stop() {
    advertiser.withLock { $0 }?.stop()
    advertiser.withLock { $0 = nil }
  }
}
