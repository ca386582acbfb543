import CAvahi
import Logging
import Synchronization

/// Finds HAP accessories on the network: browses `_hap._tcp` through avahi-daemon and resolves
/// each one (host, address, port, TXT record), following its TXT changes (a `c#` bump, `sf`
/// flipping on pairing) until it leaves. Like the advertiser it waits for a missing responder
/// and browses again after a daemon restart.
public final class HAPBrowser: Sendable {
  public struct Service: Sendable, Equatable {
    /// The instance name ("Living Room Bridge").
    public let name: String
    /// The host's mDNS name ("bridge.local").
    public let host: String
    /// The address the host name resolved to.
    public let address: String
    public let port: Int
    public let txt: [String: String]
  }

  public enum Event: Sendable, Equatable {
    /// Resolved for the first time, or its record changed.
    case found(Service)
    case removed(name: String)
  }

  private let results: BrowsingResults
  private let connection: AvahiConnection<ServiceBrowsing>?

  public init(type: String = HAPAdvertiser.serviceType, logger: Logger) {
    let results = BrowsingResults()
    self.results = results
    connection = AvahiConnection(owner: ServiceBrowsing(type: type, logger: logger, results: results))
  }

  /// Starts browsing (once).
  public func start() { connection?.start() }

  /// The services resolved now, by name.
  public var services: [String: Service] { results.found.withLock { $0 } }

  /// Every change from now on; the stream ends when the browser stops.
  public var events: AsyncStream<Event> { results.subscribe() }

  public func stop() {
    connection?.stop()
    results.end()
  }

  deinit { stop() }
}

/// What any thread reads of a browser: the services found, and who listens to the changes.
private final class BrowsingResults: Sendable {
  let found = Mutex<[String: HAPBrowser.Service]>([:])
  /// Nil once stopped: a late subscriber's stream ends at once.
  private let subscribers = Mutex<[AsyncStream<HAPBrowser.Event>.Continuation]?>([])

  func subscribe() -> AsyncStream<HAPBrowser.Event> {
    let (stream, continuation) = AsyncStream<HAPBrowser.Event>.makeStream()
    let open = subscribers.withLock { subscribers -> Bool in
      subscribers?.append(continuation)
      return subscribers != nil
    }
    if !open { continuation.finish() }
    return stream
  }

  func publish(_ event: HAPBrowser.Event) {
    for subscriber in subscribers.withLock({ $0 ?? [] }) { subscriber.yield(event) }
  }

  /// Stopped for good: ends every subscriber's stream.
  func end() {
    let ended = subscribers.withLock { subscribers in
      defer { subscribers = nil }
      return subscribers ?? []
    }
    for subscriber in ended { subscriber.finish() }
  }
}

/// A service browser and its resolvers: the poll side of a browser, owned by its
/// `AvahiConnection` (used on the poll's thread or under its lock only).
private final class ServiceBrowsing: AvahiConnectionOwner {
  private let type: String
  private let logger: Logger
  private let results: BrowsingResults
  private var client: OpaquePointer?
  private var browser: OpaquePointer?
  private var resolvers: [String: OpaquePointer] = [:]

  init(type: String, logger: Logger, results: BrowsingResults) {
    self.type = type
    self.logger = logger
    self.results = results
  }

  private func publish(_ event: HAPBrowser.Event) { results.publish(event) }

  private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

  // On the poll's thread, its lock held.
  func connectionChanged(_ event: AvahiConnectionEvent) {
    switch event {
    case .running(let client):
      self.client = client
      guard browser == nil else { return }
      browser = avahi_service_browser_new(
        client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), type, nil, AvahiLookupFlags(0),
        avahiBrowseCallback, userdata)
      if browser == nil {
        logger.error("mDNS: cannot browse \(type): \(avahiErrorText(avahi_client_errno(client)))")
      }
    case .suspended:
      break
    case .lost, .waiting, .failed:
      // The client frees its browser and resolvers; what they found is gone with the daemon.
      browser = nil
      resolvers = [:]
      client = nil
      if case .waiting(let reason) = event { logger.warning("mDNS: cannot browse \(type): \(reason)") }
      if case .failed(let reason) = event { logger.error("mDNS: cannot browse \(type): \(reason)") }
      let gone = results.found.withLock { found -> [String] in
        defer { found = [:] }
        return Array(found.keys)
      }
      for name in gone { publish(.removed(name: name)) }
    }
  }

  fileprivate func browsed(
    _ event: AvahiBrowserEvent, interface: AvahiIfIndex, protocol: AvahiProtocol, name: String, domain: String
  ) {
    switch event {
    case AVAHI_BROWSER_NEW:
      guard let client, resolvers[name] == nil else { return }
      // Kept until the service leaves: a resolver reports the record's changes too.
      if let resolver = avahi_service_resolver_new(
        client, interface, `protocol`, name, type, domain, AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiLookupFlags(0),
        avahiResolveCallback, userdata)
      {
        resolvers[name] = resolver
      }
    case AVAHI_BROWSER_REMOVE:
      if let resolver = resolvers.removeValue(forKey: name) { avahi_service_resolver_free(resolver) }
      if results.found.withLock({ $0.removeValue(forKey: name) }) != nil { publish(.removed(name: name)) }
    case AVAHI_BROWSER_FAILURE:
      logger.error("mDNS: browsing \(type) failed: \(avahiErrorText(avahi_client_errno(client)))")
    default:
      break
    }
  }

  fileprivate func resolved(_ service: HAPBrowser.Service?, name: String) {
    guard let service else {
      logger.debug("mDNS: cannot resolve '\(name)'")
      return
    }
    let changed = results.found.withLock { found -> Bool in
      defer { found[name] = service }
      return found[name] != service
    }
    if changed { publish(.found(service)) }
  }
}

private func browsing(_ userdata: UnsafeMutableRawPointer?) -> ServiceBrowsing {
  Unmanaged<ServiceBrowsing>.fromOpaque(userdata!).takeUnretainedValue()
}

private let avahiBrowseCallback: AvahiServiceBrowserCallback = {
  _, interface, proto, event, name, _, domain, _, userdata in
  browsing(userdata).browsed(
    event, interface: interface, protocol: proto, name: name.map { String(cString: $0) } ?? "",
    domain: domain.map { String(cString: $0) } ?? "local")
}

private let avahiResolveCallback: AvahiServiceResolverCallback = {
  _, _, _, event, name, _, _, host, address, port, txt, _, userdata in
  let serviceName = name.map { String(cString: $0) } ?? ""
  guard event == AVAHI_RESOLVER_FOUND, let host, let address else {
    browsing(userdata).resolved(nil, name: serviceName)
    return
  }
  var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
  avahi_address_snprint(&text, text.count, address)
  var record: [String: String] = [:]
  var entry = txt
  while let current = entry {
    var key: UnsafeMutablePointer<CChar>? = nil
    var value: UnsafeMutablePointer<CChar>? = nil
    var size = 0
    if avahi_string_list_get_pair(current, &key, &value, &size) == 0, let key {
      record[String(cString: key)] = value.map { String(cString: $0) } ?? ""
      avahi_free(key)
      avahi_free(value)
    }
    entry = avahi_string_list_get_next(current)
  }
  let service = HAPBrowser.Service(
    name: serviceName, host: String(cString: host),
    address: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
    port: Int(port), txt: record)
  browsing(userdata).resolved(service, name: serviceName)
}
