import PatchbayValues

/// The client side of the protocol without any I/O: which accessories to announce, the
/// latest value of every characteristic, and what to do with each frame from the server.
/// The plugin drives it from one event loop; tests and the fuzz target drive it directly.
///
/// Everything it returns for sending is a well-formed frame with a payload, and every value
/// has passed `CharacteristicSpec.conformed` (right JSON type, clamped to the range): the
/// real server crashes on anything else and does not check upper bounds.
public struct ClientSession: Sendable {
  /// One characteristic of one accessory.
  public struct Key: Sendable, Hashable, CustomStringConvertible {
    public var accessory: String
    public var characteristic: String
    public init(accessory: String, characteristic: String) {
      self.accessory = accessory
      self.characteristic = characteristic
    }
    public var description: String { "\(accessory).\(characteristic)" }
  }

  /// HomeKit wrote a value (a user tapped a tile, a scene ran).
  public struct HomeKitWrite: Sendable, Hashable {
    public var key: Key
    public var spec: CharacteristicSpec
    public var value: JSONValue
  }

  public enum LogLevel: Sendable, Hashable {
    case debug, info, warning
  }

  /// What one step of the session asks its driver to do.
  public struct Output: Sendable, Hashable {
    public var send: [ClientMessage] = []
    public var homeKitWrites: [HomeKitWrite] = []
    public var logs: [Log] = []
    /// `added` changed: the driver saves it.
    public var addedChanged = false

    public struct Log: Sendable, Hashable {
      public var level: LogLevel
      public var message: String
    }

    mutating func log(_ level: LogLevel, _ message: String) { logs.append(Log(level: level, message: message)) }
  }

  public let accessories: [AccessoryDefinition]
  private let byName: [String: AccessoryDefinition]
  /// Latest value per characteristic, kept while disconnected and re-sent on connect.
  public private(set) var values: [Key: JSONValue] = [:]
  public private(set) var isOpen = false
  /// What the server holds because this client added it, as far as its answers told.
  public private(set) var added: AddedAccessories
  /// A traffic probe was sent and its answer has not come.
  private var probeOutstanding = false
  /// Accessories removed and added again on this connection after "characteristic do not match".
  private var replacedThisConnection: Set<String> = []
  /// The `get all` sent on connect has not been answered yet (see `opened`).
  public private(set) var reconciling = false
  /// Values the hub set while the websocket was closed: the server has not seen them.
  private var unsent: Set<Key> = []
  /// Values the hub set while `reconciling`: sent after the `get all`, so newer than its answer.
  private var sentWhileReconciling: Set<Key> = []

  public init(accessories: [AccessoryDefinition], added: AddedAccessories = AddedAccessories()) {
    self.accessories = accessories
    byName = Dictionary(accessories.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    self.added = added
  }

  public func value(_ key: Key) -> JSONValue? { values[key] }

  /// The websocket is open: remove what this client added earlier and the config no longer
  /// has, or has with another service (the server would keep the old one); announce every
  /// accessory (an "already used" answer is success); then ask for the server's values. Its
  /// answer decides, per characteristic (`reconcile`): a value the server forgot (it
  /// restarted) or the hub set meanwhile is sent again; one HomeKit wrote while this client
  /// did not get the traffic (it was down, or another client had taken it) is taken as
  /// HomeKit's write instead of being reverted.
  public mutating func opened() -> Output {
    isOpen = true
    probeOutstanding = false
    replacedThisConnection = []
    reconciling = true
    sentWhileReconciling = []
    var output = Output()
    for (name, service) in added.services.sorted(by: { $0.key < $1.key }) where byName[name]?.service.name != service {
      output.send.append(.remove(name: name))
      let now =
        byName[name].map { "its service changed from \(service) to \($0.service.name)" } ?? "not configured any more"
      output.log(.info, "removing accessory '\(name)' from Homebridge: \(now)")
    }
    output.send += accessories.map { .add($0) }
    // Kept before the answers come (and saved before the adds go out): a hub stopped in
    // between still knows what it asked for, and replaces a changed service at its next start.
    for definition in accessories where added.services[definition.name] != definition.service.name {
      added.services[definition.name] = definition.service.name
      output.addedChanged = true
    }
    output.send.append(.get(name: "all"))
    output.log(.info, "connected: adding \(accessories.count) accessories, reading Homebridge's values")
    return output
  }

  /// The answer to the `get all` of `opened`: per characteristic, the server's value or ours.
  private mutating func reconcile(_ list: [String: JSONValue], _ output: inout Output) {
    reconciling = false
    var resent = 0
    for definition in accessories {
      let shown = list[definition.name]?.objectValue?["characteristics"]?.objectValue ?? [:]
      for spec in definition.characteristics where !spec.isEvent {
        let key = Key(accessory: definition.name, characteristic: spec.name)
        if sentWhileReconciling.contains(key) { continue }
        let ours = values[key]
        // The server shows a value it has none of as "blank" (after a restart).
        let theirs = shown[spec.name].flatMap { $0 == .string("blank") || $0 == .null ? nil : spec.conformed($0) }
        guard let theirs, !unsent.contains(key) else {
          if let ours {
            output.send.append(.setValue(name: definition.name, characteristic: spec.name, value: ours))
            resent += 1
          }
          continue
        }
        guard theirs != ours else { continue }
        values[key] = theirs
        // Only a change of a value this client had: a restart of patchbay must not replay old writes.
        guard let ours else { continue }
        output.log(
          .info,
          "Homebridge has \(key) = \(theirs.description), not \(ours.description): HomeKit wrote it while "
            + "patchbay did not get its writes; taken as HomeKit's write")
        if spec.homeKitWritable { output.homeKitWrites.append(HomeKitWrite(key: key, spec: spec, value: theirs)) }
      }
    }
    unsent = []
    sentWhileReconciling = []
    output.log(.info, "re-sent \(resent) values Homebridge did not have")
  }

  private func resend(_ definition: AccessoryDefinition) -> [ClientMessage] {
    definition.characteristics.compactMap { spec in
      values[Key(accessory: definition.name, characteristic: spec.name)].map {
        .setValue(name: definition.name, characteristic: spec.name, value: $0)
      }
    }
  }

  public mutating func closed() {
    isOpen = false
  }

  /// Checks that the server still sends its traffic to this client: it sends HomeKit's writes
  /// and reads, and its answers, only to the most recently connected client. Returns a `get`
  /// to send (its answer comes back only to the newest client), or nil when the previous
  /// probe is still unanswered: another client has taken the traffic.
  public mutating func probeTraffic() -> Output? {
    guard isOpen, let first = accessories.first else { return Output() }
    guard !probeOutstanding else { return nil }
    probeOutstanding = true
    var output = Output()
    output.send = [.get(name: first.name)]
    return output
  }

  /// The hub set a value. It is conformed to the characteristic, remembered (unless it is an
  /// event) and sent at once when connected.
  public mutating func update(_ key: Key, to value: JSONValue) -> Output {
    var output = Output()
    guard let spec = byName[key.accessory]?.characteristic(named: key.characteristic) else {
      output.log(.warning, "no characteristic \(key) is configured; value \(value.description) dropped")
      return output
    }
    guard let conformed = spec.conformed(value) else {
      output.log(.warning, "\(key): \(value.description) is not a valid \(spec.format.rawValue) value; dropped")
      return output
    }
    if conformed != value {
      output.log(.debug, "\(key): \(value.description) adjusted to \(conformed.description) (range and format)")
    }
    if spec.isEvent {
      guard isOpen else {
        output.log(.warning, "\(key): event \(conformed.description) dropped, not connected to Homebridge")
        return output
      }
    } else {
      values[key] = conformed
    }
    if isOpen {
      output.send.append(.setValue(name: key.accessory, characteristic: key.characteristic, value: conformed))
      if reconciling { sentWhileReconciling.insert(key) }
    } else {
      if !spec.isEvent { unsent.insert(key) }
      output.log(.debug, "\(key) = \(conformed.description) kept until Homebridge is connected")
    }
    return output
  }

  /// One text frame from the server. Malformed or unexpected frames are logged and ignored.
  public mutating func receive(text: String) -> Output {
    var output = Output()
    let message: ServerMessage
    do {
      message = try ServerMessage(text: text)
    } catch {
      output.log(.warning, "ignored a frame from Homebridge (\(error)): \(Self.excerpt(text))")
      return output
    }
    switch message {
    case .response(let ack, let message):
      respond(to: ack, message, &output)
    case .accessories(let list):
      if let first = accessories.first, list[first.name] != nil { probeOutstanding = false }
      output.log(.debug, "Homebridge sent its accessory list")
      if reconciling { reconcile(list, &output) }
    case .set(let name, let characteristic, let value):
      let key = Key(accessory: name, characteristic: characteristic)
      guard let spec = byName[name]?.characteristic(named: characteristic) else {
        output.log(.warning, "HomeKit wrote \(key), which is not configured; ignored")
        break
      }
      guard let conformed = spec.conformed(value) else {
        output.log(
          .warning, "HomeKit wrote \(key) = \(Self.excerpt(value.description)), not a \(spec.format.rawValue); ignored")
        break
      }
      if !spec.isEvent { values[key] = conformed }
      output.homeKitWrites.append(HomeKitWrite(key: key, spec: spec, value: conformed))
    case .get(let name, let characteristic):
      let key = Key(accessory: name, characteristic: characteristic)
      if let value = values[key] {
        output.send.append(.callback(name: name, characteristic: characteristic, value: value))
      } else {
        output.log(.debug, "HomeKit read \(key), which has no value yet; not answered")
      }
    }
    return output
  }

  /// Keeps `added` in step with the server's answers, and replaces an accessory whose
  /// service on the server is not the configured one (values for it are refused).
  private mutating func respond(to ack: Bool, _ message: String, _ output: inout Output) {
    if let name = Self.name(in: message, "accessory '", "' is added.")
      ?? Self.name(in: message, "name '", "' is already used."), let definition = byName[name]
    {
      output.log(.debug, "Homebridge: \(message)")
      if added.services[name] != definition.service.name {
        added.services[name] = definition.service.name
        output.addedChanged = true
      }
      return
    }
    if let name = Self.name(in: message, "accessory '", "' is removed.")
      ?? Self.name(in: message, "accessory '", "' not found.")
    {
      output.log(.debug, "Homebridge: \(message)")
      // Only a removal this client asked for: gone from the config, or about to be added again.
      if let recorded = added.services[name], recorded != byName[name]?.service.name {
        added.services[name] = nil
        output.addedChanged = true
      }
      return
    }
    if let name = Self.name(in: message, "name '", "' characteristic do not match."), let definition = byName[name],
      !replacedThisConnection.contains(name)
    {
      // Added with another service before this client kept a record: replace it once.
      replacedThisConnection.insert(name)
      output.log(
        .warning,
        "Homebridge has accessory '\(name)' with another service than \(definition.service.name); "
          + "removing and adding it again")
      added.services[name] = "unknown"
      output.addedChanged = true
      output.send = [.remove(name: name), .add(definition)] + resend(definition)
      return
    }
    // The probe's `get` for an accessory the server does not know is answered with this,
    // still only to the newest client: the traffic comes here.
    if let first = accessories.first, message == "name '\(first.name)' undefined." { probeOutstanding = false }
    output.log(ack ? .debug : .warning, ack ? "Homebridge: \(message)" : "Homebridge refused: \(message)")
  }

  /// The accessory name in one of the server's answers, e.g. `accessory 'X' is added.`.
  static func name(in message: String, _ prefix: String, _ suffix: String) -> String? {
    guard message.hasPrefix(prefix), message.hasSuffix(suffix), message.count >= prefix.count + suffix.count
    else { return nil }
    return String(message.dropFirst(prefix.count).dropLast(suffix.count))
  }

  static func excerpt(_ text: String) -> String {
    text.count > 200 ? String(text.prefix(200)) + "..." : text
  }
}
