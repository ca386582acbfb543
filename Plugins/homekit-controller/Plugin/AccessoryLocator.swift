import HAPDiscovery
import Logging
import Synchronization

/// Where the paired accessory is now: the address stored at pairing, then whatever its mDNS
/// record says (`_hap._tcp` with TXT `id` = its device id). An accessory takes a new port on
/// every restart when it has none configured, and a new address from DHCP: the link connects
/// to the latest one, and a move wakes its back-off at once.
final class AccessoryLocator: Sendable {
  struct Location: Sendable, Equatable, CustomStringConvertible {
    var host: String
    var port: Int
    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
  }

  let deviceID: String
  private let browser: HAPBrowser
  private let location: Mutex<Location>
  private let following = Mutex<Task<Void, Never>?>(nil)
  /// Who waits for the next move (`wait`), resumed when it comes or when they give up.
  private let waiters = Mutex<[UInt64: CheckedContinuation<Void, Never>]>([:])
  private let nextWaiter = Atomic<UInt64>(0)

  init(deviceID: String, stored: Location, logger: Logger) {
    self.deviceID = deviceID
    browser = HAPBrowser(logger: logger)
    location = Mutex(stored)
  }

  /// The latest location.
  var now: Location { location.withLock { $0 } }

  /// Follows the accessory's record; `moved` is called with each new location.
  func start(moved: @escaping @Sendable (Location) -> Void) {
    let events = browser.events
    browser.start()
    let deviceID = deviceID.uppercased()
    let task = Task { [self] in
      for await event in events {
        guard case .found(let service) = event, service.txt["id"]?.uppercased() == deviceID,
          let found = Self.location(of: service)
        else { continue }
        let changed = location.withLock { location -> Bool in
          defer { location = found }
          return location != found
        }
        guard changed else { continue }
        moved(found)
        for waiter in waiters.withLock({ waiters in
          defer { waiters = [:] }; return Array(waiters.values)
        }) {
          waiter.resume()
        }
      }
    }
    following.withLock { $0 = task }
  }

  /// Waits `seconds`, or less when the accessory moves away from `from` meanwhile.
  func wait(seconds: Double, awayFrom from: Location) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { try? await Task.sleep(for: .seconds(seconds)) }
      group.addTask { [self] in await nextMove(awayFrom: from) }
      await group.next()
      group.cancelAll()
    }
  }

  /// Returns once the location is not `from` (at once if it is not now), or when cancelled.
  private func nextMove(awayFrom from: Location) async {
    let id = nextWaiter.add(1, ordering: .relaxed).newValue
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        // Registered under the lock the mover empties: a move either comes before (seen here)
        // or after (it resumes this one).
        let resumeNow = waiters.withLock { waiters -> Bool in
          if Task.isCancelled || now != from { return true }
          waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      waiters.withLock { $0.removeValue(forKey: id) }?.resume()
    }
  }

  func stop() {
    browser.stop()
    following.withLock { $0?.cancel() }
  }

  /// A resolved record as a place to connect to: a link-local IPv6 address needs its interface,
  /// which the record does not carry, so it is left for the IPv4 one.
  static func location(of service: HAPBrowser.Service) -> Location? {
    if service.address.lowercased().hasPrefix("fe80:") { return nil }
    return Location(host: service.address, port: service.port)
  }
}
