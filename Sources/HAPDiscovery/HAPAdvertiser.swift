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

  private let status: RegistrationStatus
  private let connection: AvahiConnection<ServiceRegistration>?

  /// `name` is the instance name (the accessory's name; a DNS label holds 63 bytes of UTF-8, a
  /// longer name is cut at a character boundary and logged); `port` the TCP port the HAP server
  /// listens on.
  public init(name: String, port: Int, txt: HAPTXTRecord, logger: Logger) {
    let label = Self.instanceLabel(name)
    if label != name { logger.warning("mDNS: the name '\(name)' is longer than 63 bytes; advertising '\(label)'") }
    let status = RegistrationStatus(txt: txt)
    self.status = status
    connection = AvahiConnection(
      owner: ServiceRegistration(name: label, port: port, txt: txt, logger: logger, status: status))
    if connection == nil { status.set(.failed("Avahi could not make its poll thread")) }
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
  public func start() { connection?.start() }

  /// Replaces the TXT record (on the network at once when registered, else at registration).
  public func update(txt: HAPTXTRecord) {
    status.lastTXT.withLock { $0 = txt }
    connection?.withLock { $0.update(txt: txt) }
  }

  public var state: State { status.state }

  /// The state now, then every change (for a status line; read it in a task of your own). The
  /// stream ends when the advertiser stops.
  public var stateChanges: AsyncStream<State> { status.subscribe() }

  /// The TXT record last given.
  public var txt: HAPTXTRecord { status.lastTXT.withLock { $0 } }

  /// Withdraws the service and disconnects. The advertiser cannot be started again.
  public func stop() {
    connection?.stop()
    status.end()
  }

  deinit { stop() }
}

/// The advertiser's state and who listens to its changes.
private struct Published {
  var state = HAPAdvertiser.State.stopped
  var subscribers: [AsyncStream<HAPAdvertiser.State>.Continuation] = []
  /// Stopped for good: a late subscriber's stream ends at once.
  var ended = false
}

/// What any thread reads of an advertiser: its state with who listens, and the TXT record last
/// given.
private final class RegistrationStatus: Sendable {
  private let published = Mutex(Published())
  let lastTXT: Mutex<HAPTXTRecord>

  init(txt: HAPTXTRecord) { lastTXT = Mutex(txt) }

  var state: HAPAdvertiser.State { published.withLock { $0.state } }

  func subscribe() -> AsyncStream<HAPAdvertiser.State> {
    let (stream, continuation) = AsyncStream<HAPAdvertiser.State>.makeStream()
    published.withLock { published in
      continuation.yield(published.state)
      if published.ended { continuation.finish() } else { published.subscribers.append(continuation) }
    }
    return stream
  }

  /// Records the state and tells the subscribers of a change (in order: under the Mutex).
  func set(_ state: HAPAdvertiser.State) {
    published.withLock { published in
      guard published.state != state else { return }
      published.state = state
      for subscriber in published.subscribers { subscriber.yield(state) }
    }
  }

  /// Stopped for good: ends every subscriber's stream.
  func end() {
    set(.stopped)
    let subscribers = published.withLock { published in
      published.ended = true
      defer { published.subscribers = [] }
      return published.subscribers
    }
    for subscriber in subscribers { subscriber.finish() }
  }
}

/// The entry group of one `_hap._tcp` service: the poll side of an advertiser, owned by its
/// `AvahiConnection` (used on the poll's thread or under its lock only).
private final class ServiceRegistration: AvahiConnectionOwner {
  private var name: String
  private var txt: HAPTXTRecord
  private let port: Int
  private let logger: Logger
  private var group: OpaquePointer?
  private var warnedOfWaiting = false
  private let status: RegistrationStatus

  init(name: String, port: Int, txt: HAPTXTRecord, logger: Logger, status: RegistrationStatus) {
    self.name = name
    self.txt = txt
    self.port = port
    self.logger = logger
    self.status = status
  }

  /// Under the poll's lock.
  func update(txt newTXT: HAPTXTRecord) {
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

  private func set(_ state: HAPAdvertiser.State) { status.set(state) }

  // On the poll's thread, its lock held.
  func connectionChanged(_ event: AvahiConnectionEvent) {
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
