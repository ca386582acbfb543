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
    /// `known` changed: the driver saves it (it may wait a moment and save several at once).
    public var knownChanged = false

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
  /// What the server held, per characteristic, when this client last saw it: what it sent
  /// there, or read or was told back. A value differing from it in `values` is one the hub
  /// changed while the server was out of reach; a server value differing from it is HomeKit's.
  private var serverHad: [Key: JSONValue] = [:]
  /// Values the hub set while `reconciling`: sent after the `get all`, so newer than its answer.
  private var sentWhileReconciling: Set<Key> = []
  /// Accessories the server answered "is added." on this connection: it has just made them,
  /// so whatever it shows for them is a default, not something HomeKit wrote.
  private var createdThisConnection: Set<String> = []
  /// What an earlier run knew as the latest values: a restarted plugin is given the hub's
  /// retained value of each input again, at a moment it cannot choose (under load after the
  /// server's list was read). That replay is no change by the hub and must not overwrite a
  /// write HomeKit made meanwhile; the first value per key equal to this is taken as it.
  private var replayable: [Key: JSONValue] = [:]

  /// `known` is what an earlier run of the plugin knew (its state file): a restarted plugin,
  /// or one the hub started afresh without any values, still tells HomeKit's writes made
  /// while it was away from its own, and refills a Homebridge that restarted.
  public init(
    accessories: [AccessoryDefinition], added: AddedAccessories = AddedAccessories(), known: KnownValues = KnownValues()
  ) {
    self.accessories = accessories
    byName = Dictionary(accessories.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    self.added = added
    // Only what the config still has, conformed to its characteristic as any value here is.
    func kept(_ values: [Key: JSONValue]) -> [Key: JSONValue] {
      var result: [Key: JSONValue] = [:]
      for (key, value) in values {
        guard let spec = byName[key.accessory]?.characteristic(named: key.characteristic), !spec.isEvent,
          let conformed = spec.conformed(value)
        else { continue }
        result[key] = conformed
      }
      return result
    }
    values = kept(known.latest)
    serverHad = kept(known.server)
    replayable = values
  }

  /// What to keep across restarts (see `KnownValues`).
  public var known: KnownValues { KnownValues(latest: values, server: serverHad) }

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
    createdThisConnection = []
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
  /// - The server has none (it restarted: 0.2.2 shows "blank"; or it has just made the
  ///   accessory): ours is sent.
  /// - The hub changed ours since this client last saw the server (`serverHad`): ours is
  ///   newer than anything there, and is sent unless the server has it already.
  /// - Otherwise the server's value stands; one that differs from ours was written by HomeKit
  ///   while its writes did not reach this client, and is taken as HomeKit's write.
  private mutating func reconcile(_ list: [String: JSONValue], _ output: inout Output) {
    reconciling = false
    var refilled = 0
    var changed = 0
    for definition in accessories {
      let shown = list[definition.name]?.objectValue?["characteristics"]?.objectValue ?? [:]
      let created = createdThisConnection.contains(definition.name)
      for spec in definition.characteristics where !spec.isEvent {
        let key = Key(accessory: definition.name, characteristic: spec.name)
        if sentWhileReconciling.contains(key) { continue }
        let ours = values[key]
        let theirs =
          created ? nil : shown[spec.name].flatMap { $0 == .string("blank") || $0 == .null ? nil : spec.conformed($0) }
        guard let theirs else {
          if let ours {
            output.send.append(.setValue(name: definition.name, characteristic: spec.name, value: ours))
            serverHad[key] = ours
            refilled += 1
          }
          continue
        }
        if let ours, ours != serverHad[key] {
          if ours != theirs {
            output.send.append(.setValue(name: definition.name, characteristic: spec.name, value: ours))
            changed += 1
          }
          serverHad[key] = ours
          continue
        }
        serverHad[key] = theirs
        guard theirs != ours else { continue }
        values[key] = theirs
        // Only a change of a value this client had: a first start must not replay old writes.
        guard let ours else { continue }
        output.log(
          .info,
          "Homebridge has \(key) = \(theirs.description), not \(ours.description): HomeKit wrote it while "
            + "patchbay did not get its writes; taken as HomeKit's write")
        if spec.homeKitWritable { output.homeKitWrites.append(HomeKitWrite(key: key, spec: spec, value: theirs)) }
      }
    }
    sentWhileReconciling = []
    output.knownChanged = true
    var summary = "read Homebridge's values"
    if refilled > 0 {
      summary += "; re-sent \(refilled) values Homebridge did not have (it restarted, or made the accessory anew)"
    }
    if changed > 0 { summary += "; sent \(changed) values the hub set while Homebridge was out of reach" }
    output.log(.info, summary)
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
    if !spec.isEvent, let replayed = replayable.removeValue(forKey: key), replayed == conformed {
      output.log(.debug, "\(key) = \(conformed.description): the hub's last value again, as known")
      return output
    }
    if spec.isEvent {
      guard isOpen else {
        output.log(.warning, "\(key): event \(conformed.description) dropped, not connected to Homebridge")
        return output
      }
    } else {
      output.knownChanged = values[key] != conformed || (isOpen && serverHad[key] != conformed)
      values[key] = conformed
    }
    if isOpen {
      output.send.append(.setValue(name: key.accessory, characteristic: key.characteristic, value: conformed))
      if !spec.isEvent { serverHad[key] = conformed }
      if reconciling { sentWhileReconciling.insert(key) }
    } else {
      // Whether it counts as changed is decided on connect: it does when it differs from
      // `serverHad` (a restarted plugin is first given the hub's last value: no change).
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
      if !spec.isEvent {
        values[key] = conformed
        serverHad[key] = conformed
        output.knownChanged = true
      }
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
      if message.hasSuffix("' is added.") { createdThisConnection.insert(name) }
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
