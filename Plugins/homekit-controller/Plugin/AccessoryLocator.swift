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
        if changed { moved(found) }
      }
    }
    following.withLock { $0 = task }
  }

  /// Waits `seconds`, or less when the accessory moves away from `from` meanwhile.
  func wait(seconds: Double, awayFrom from: Location) async {
    var left = seconds
    // Half-second steps: the record is a Mutex the browser's thread updates.
    while left > 0, !Task.isCancelled, now == from {
      try? await Task.sleep(for: .milliseconds(Int(min(left, 0.5) * 1000)))
      left -= 0.5
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
