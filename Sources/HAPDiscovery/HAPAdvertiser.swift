import CAvahi
import Logging
import Synchronization

/// Advertises one HAP accessory (a bridge) as `_hap._tcp` through the system's mDNS responder,
/// avahi-daemon, over D-Bus. Without a responder it says so once in the log, keeps waiting and
/// registers by itself when avahi-daemon appears (and again after the daemon restarts); the
/// accessory's server keeps accepting connections meanwhile. A name another host already
/// advertises is replaced by Avahi's alternative ("Bridge #2"), and logged.
///
/// Calls may come from any thread except Avahi's own (this type never calls out on it).
public final class HAPAdvertiser: Sendable {
  public enum State: Sendable, Equatable {
    /// Not started, or stopped.
    case stopped
    /// Connected to avahi-daemon; the service with this name is being probed and announced.
    case registering(String)
    /// The service is on the network under this name (it may differ from the one asked for).
    case advertising(String)
    /// No mDNS responder (or no D-Bus): waiting for one to appear.
    case waitingForResponder(String)
    /// Avahi refused the service (an invalid name, a failed daemon): not retried.
    case failed(String)
  }

  public static let serviceType = "_hap._tcp"

  private let registration: ServiceRegistration

  /// `name` is the instance name (the accessory's name; a DNS label holds 63 bytes of UTF-8, a
  /// longer name is cut at a character boundary and logged); `port` the TCP port the HAP server
  /// listens on.
  public init(name: String, port: Int, txt: HAPTXTRecord, logger: Logger) {
    let label = Self.instanceLabel(name)
    if label != name { logger.warning("mDNS: the name '\(name)' is longer than 63 bytes; advertising '\(label)'") }
    registration = ServiceRegistration(name: label, port: port, txt: txt, logger: logger)
  }

  /// `name` cut to the 63 bytes of a DNS label, at a character boundary.
  public static func instanceLabel(_ name: String) -> String {
    var label = ""
    for character in name {
      guard label.utf8.count + String(character).utf8.count <= 63 else { break }
      label.append(character)
    }
    return label
  }

  /// Connects to avahi-daemon (or starts waiting for it) and registers the service.
  public func start() { registration.start() }

  /// Replaces the TXT record (on the network at once when registered, else at registration).
  public func update(txt: HAPTXTRecord) { registration.update(txt: txt) }

  public var state: State { registration.state }

  /// The state now, then every change (for a status line; read it in a task of your own). The
  /// stream ends when the advertiser stops.
  public var stateChanges: AsyncStream<State> { registration.subscribe() }

  /// The TXT record last given.
  public var txt: HAPTXTRecord { registration.currentTXT }

  /// Withdraws the service and disconnects. The advertiser cannot be started again.
  public func stop() { registration.stop() }

  deinit { registration.stop() }
}

/// The advertiser's state and who listens to its changes.
private struct Published {
  var state = HAPAdvertiser.State.stopped
  var subscribers: [AsyncStream<HAPAdvertiser.State>.Continuation] = []
  /// Stopped for good: a late subscriber's stream ends at once.
  var ended = false
}

/// The entry group of one `_hap._tcp` service on an `AvahiConnection`.
private final class ServiceRegistration: @unchecked Sendable {
  // C boundary, unchecked: `group`, `name`, `txt` and `warnedOfWaiting` belong to the Avahi
  // threaded poll (used on its thread or under its lock); `published` (with the state's
  // subscribers) and `lastTXT` are Mutexes.
  private var name: String
  private var txt: HAPTXTRecord
  private let port: Int
  private let logger: Logger
  private var connection: AvahiConnection?
  private var group: OpaquePointer?
  private var warnedOfWaiting = false
  private let published = Mutex(Published())
  private let lastTXT: Mutex<HAPTXTRecord>

  init(name: String, port: Int, txt: HAPTXTRecord, logger: Logger) {
    self.name = name
    self.txt = txt
    self.port = port
    self.logger = logger
    lastTXT = Mutex(txt)
    connection = nil
    connection = AvahiConnection { [unowned self] event in self.connectionChanged(event) }
    if connection == nil { set(.failed("Avahi could not make its poll thread")) }
  }

  var state: HAPAdvertiser.State { published.withLock { $0.state } }

  func subscribe() -> AsyncStream<HAPAdvertiser.State> {
    let (stream, continuation) = AsyncStream<HAPAdvertiser.State>.makeStream()
    published.withLock { published in
      continuation.yield(published.state)
      if published.ended { continuation.finish() } else { published.subscribers.append(continuation) }
    }
    return stream
  }

  var currentTXT: HAPTXTRecord { lastTXT.withLock { $0 } }

  func start() { connection?.start() }

  func stop() {
    connection?.stop()
    set(.stopped)
    let subscribers = published.withLock { published in
      published.ended = true
      defer { published.subscribers = [] }
      return published.subscribers
    }
    for subscriber in subscribers { subscriber.finish() }
  }

  func update(txt newTXT: HAPTXTRecord) {
    lastTXT.withLock { $0 = newTXT }
    guard let connection else { return }
    connection.withLock {
      txt = newTXT
      guard let group, avahi_entry_group_is_empty(group) == 0 else { return }
      let list = newTXT.avahiStringList()
      defer { avahi_string_list_free(list) }
      let result = avahi_entry_group_update_service_txt_strlst(
        group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name,
        HAPAdvertiser.serviceType, nil, list)
      if result < 0 {
        logger.warning(
          "mDNS: could not update the TXT record of '\(name)' (\(avahiErrorText(result))); registering anew")
        register()
      }
    }
  }

  /// Records the state and tells the subscribers of a change (in order: under the Mutex).
  private func set(_ state: HAPAdvertiser.State) {
    published.withLock { published in
      guard published.state != state else { return }
      published.state = state
      for subscriber in published.subscribers { subscriber.yield(state) }
    }
  }

  // On the poll's thread, its lock held.
  private func connectionChanged(_ event: AvahiConnectionEvent) {
    switch event {
    case .running(let client):
      register(on: client)
    case .suspended:
      if let group { avahi_entry_group_reset(group) }
      set(.registering(name))
    case .lost:
      group = nil
    case .waiting(let reason):
      group = nil
      set(.waitingForResponder(reason))
      if !warnedOfWaiting {
        warnedOfWaiting = true
        logger.warning(
          "no mDNS responder: install and start avahi-daemon (apt install avahi-daemon); iPhones will not find this bridge until then; it still accepts connections (\(reason))"
        )
      }
    case .failed(let reason):
      group = nil
      set(.failed(reason))
      logger.error("mDNS: Avahi failed: \(reason); '\(name)' is not advertised")
    }
  }

  private func register(on client: OpaquePointer) {
    if group == nil {
      group = avahi_entry_group_new(client, avahiGroupCallback, Unmanaged.passUnretained(self).toOpaque())
    }
    register()
  }

  /// (Re)adds the service to the group and commits it; a name taken on this host (another
  /// client of the same daemon) is renamed here, one taken on the network in the callback.
  private func register() {
    guard let group else {
      fail("cannot create an Avahi entry group")
      return
    }
    avahi_entry_group_reset(group)
    let list = txt.avahiStringList()
    defer { avahi_string_list_free(list) }
    for _ in 0..<100 {
      let result = avahi_entry_group_add_service_strlst(
        group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name,
        HAPAdvertiser.serviceType, nil, nil, UInt16(truncatingIfNeeded: port), list)
      if Int(result) == Int(AVAHI_ERR_COLLISION) {
        rename()
        continue
      }
      if result < 0 {
        fail("cannot add '\(name)' (\(avahiErrorText(result)))")
        return
      }
      let committed = avahi_entry_group_commit(group)
      if committed < 0 {
        fail("cannot commit '\(name)' (\(avahiErrorText(committed)))")
        return
      }
      set(.registering(name))
      return
    }
    fail("no free name after 100 alternatives of '\(name)'")
  }

  private func rename() {
    let old = name
    if let alternative = avahi_alternative_service_name(name) {
      name = String(cString: alternative)
      avahi_free(alternative)
    }
    logger.warning("mDNS: the name '\(old)' is taken on the network; advertising as '\(name)'")
  }

  private func fail(_ reason: String) {
    set(.failed(reason))
    logger.error("mDNS: \(reason)")
  }

  fileprivate func groupChanged(_ changed: OpaquePointer, _ state: AvahiEntryGroupState) {
    guard changed == group else { return }
    switch state {
    case AVAHI_ENTRY_GROUP_ESTABLISHED:
      warnedOfWaiting = false
      set(.advertising(name))
      logger.info("mDNS: advertising '\(name)' (\(HAPAdvertiser.serviceType), port \(port))")
    case AVAHI_ENTRY_GROUP_COLLISION:
      rename()
      register()
    case AVAHI_ENTRY_GROUP_FAILURE:
      let error = avahi_client_errno(avahi_entry_group_get_client(changed))
      fail("Avahi withdrew '\(name)' (\(avahiErrorText(error)))")
    default:
      break
    }
  }
}

private let avahiGroupCallback: AvahiEntryGroupCallback = { group, state, userdata in
  guard let group, let userdata else { return }
  Unmanaged<ServiceRegistration>.fromOpaque(userdata).takeUnretainedValue().groupChanged(group, state)
}
