import HAP
import PatchbayValues
import Synchronization

/// Where characteristic changes go as HAP events (the `HAPServer`; tests record them).
protocol ChangeNotifier: Sendable {
  func notify(_ changes: [(HAPCharacteristicID, JSONValue)], immediately: Bool, except: String?)
}

extension HAPServer: ChangeNotifier {}

/// The bridge's accessories as the HAP server sees them: the database, the current value of
/// every characteristic, reads, validated writes (published on the accessories' `.set` ports)
/// and the pairing state's persistence. Values change from two sides (hub inputs in the plugin
/// context, controller writes on the server's tasks), so they live behind one mutex.
final class BridgeAccessories: HAPAccessoryDelegate {
  /// What happened to the pairings; persisted before HAP's `pairingStateChanged` returns.
  typealias PairingsChanged = @Sendable (HAPPairingState) throws -> Void
  typealias Publish = @Sendable (Value, String) -> Void
  typealias Log = @Sendable (String) -> Void
  /// Controllers' writes, to keep (a hub restart must not undo what the user did in Home).
  typealias WritesChanged = @Sendable ([HAPCharacteristicID: JSONValue]) -> Void

  let database: AccessoryDatabase
  let ports: [AccessoryPorts]
  /// Input port name -> (config accessory, what it carries).
  let inputs: [String: (accessory: Int, input: AccessoryPorts.Input)]
  private let publish: Publish
  private let log: Log
  private let pairingsChanged: PairingsChanged
  private let writesChanged: WritesChanged?
  private let values: Mutex<[HAPCharacteristicID: JSONValue]>
  private let notifier = Mutex<(any ChangeNotifier)?>(nil)

  init(
    database: AccessoryDatabase, accessories: [HomeKitConfig.Accessory], publish: @escaping Publish,
    log: @escaping Log, pairingsChanged: @escaping PairingsChanged,
    restoring written: [HAPCharacteristicID: JSONValue] = [:],
    writesChanged: WritesChanged? = nil
  ) {
    self.database = database
    ports = accessories.map(AccessoryPorts.init)
    var inputs: [String: (accessory: Int, input: AccessoryPorts.Input)] = [:]
    for (index, accessoryPorts) in ports.enumerated() {
      for (name, input) in accessoryPorts.inputs { inputs[name] = (index, input) }
    }
    self.inputs = inputs
    var initial: [HAPCharacteristicID: JSONValue] = [:]
    for (id, entry) in database.entries where entry.fixedValue == nil && entry.characteristic != .identify {
      initial[id] = entry.characteristic.initialValue
    }
    // Writable values as controllers last wrote them (kept across restarts); only valid ones.
    for (id, value) in written {
      guard let characteristic = database.entries[id]?.characteristic, characteristic.writable,
        initial[id] != nil, let valid = CharacteristicValue.fromController(value, for: characteristic)
      else { continue }
      initial[id] = valid
    }
    values = Mutex(initial)
    self.writesChanged = writesChanged
    self.publish = publish
    self.log = log
    self.pairingsChanged = pairingsChanged
  }

  /// Where events go from now on (the server, once it runs).
  func connect(_ notifier: (any ChangeNotifier)?) { self.notifier.withLock { $0 = notifier } }

  // MARK: Hub -> HomeKit

  /// A value arrived on input port `name`: the characteristics it changes get the new value and
  /// an event goes to subscribed controllers (only when a value really changed; button presses
  /// always, at once). Returns the changes (for tests and logs).
  @discardableResult
  func receive(_ value: Value, onInput name: String) -> [(HAPCharacteristicID, JSONValue)] {
    guard let (index, input) = inputs[name] else { return [] }
    let updates = ports[index].updates(for: value, on: input)
    let isButton = input == .button
    let changes: [(HAPCharacteristicID, JSONValue)] = values.withLock { values in
      updates.compactMap { characteristic, json in
        guard let id = database.id(of: characteristic.type, accessory: index) else { return nil }
        if isButton { return (id, json) }  // its read value stays null
        guard values[id] != json else { return nil }
        values[id] = json
        return (id, json)
      }
    }
    if !changes.isEmpty {
      notifier.withLock { $0 }?.notify(changes, immediately: isButton, except: nil)
    }
    return changes
  }

  /// The current value of a characteristic (tests, status).
  func value(of id: HAPCharacteristicID) -> JSONValue? {
    database.entries[id]?.fixedValue ?? values.withLock { $0[id] }
  }

  /// The current value of every writable characteristic (what `writesChanged` keeps).
  var writableValues: [HAPCharacteristicID: JSONValue] {
    let snapshot = values.withLock { $0 }
    return snapshot.filter { database.entries[$0.key]?.characteristic.writable == true }
  }

  // MARK: HAPAccessoryDelegate

  func accessoryDatabase() async -> JSONValue {
    let snapshot = values.withLock { $0 }
    return database.json { id in
      guard let entry = self.database.entries[id] else { return nil }
      if entry.characteristic.readsNull { return .null }
      return entry.fixedValue ?? snapshot[id]
    }
  }

  func readCharacteristics(_ ids: [HAPCharacteristicID], fields: HAPReadFields) async -> [HAPReadResult] {
    let snapshot = values.withLock { $0 }
    return ids.map { id in
      guard let entry = database.entries[id] else {
        return HAPReadResult(id: id, status: .resourceDoesNotExist, value: nil, fields: [:])
      }
      guard entry.characteristic != .identify else {
        return HAPReadResult(id: id, status: .writeOnly, value: nil, fields: [:])
      }
      let value: JSONValue = entry.characteristic.readsNull ? .null : entry.fixedValue ?? snapshot[id] ?? .null
      let extra = Dictionary(
        database.metadata(entry.characteristic, fields: fields), uniquingKeysWith: { first, _ in first })
      return HAPReadResult(id: id, status: .success, value: value, fields: extra)
    }
  }

  func writeCharacteristics(_ writes: [HAPWrite], controller: String) async -> [HAPWriteResult] {
    var results: [HAPWriteResult] = []
    var changes: [(HAPCharacteristicID, JSONValue)] = []
    var publications: [(Value, String)] = []
    for write in writes {
      guard let entry = database.entries[write.id] else {
        results.append(HAPWriteResult(id: write.id, status: .resourceDoesNotExist, value: nil))
        continue
      }
      let characteristic = entry.characteristic
      guard characteristic.writable else {
        results.append(HAPWriteResult(id: write.id, status: .readOnly, value: nil))
        continue
      }
      // A security-class write (lock, garage door) outside /prepare: the spec's answer is -70410.
      guard let value = CharacteristicValue.fromController(write.value, for: characteristic),
        !characteristic.timedWrite || write.isTimed
      else {
        log("refused \(controller)'s write of \(write.value.description) to \(describe(write.id)): invalid value")
        results.append(HAPWriteResult(id: write.id, status: .invalidValue, value: nil))
        continue
      }
      if characteristic == .identify {
        log("identify \(describe(write.id)) (asked by \(controller))")
        results.append(HAPWriteResult(id: write.id, status: .success, value: nil))
        continue
      }
      let changed = values.withLock { values -> [HAPCharacteristicID: JSONValue]? in
        guard values[write.id] != value else { return nil }
        values[write.id] = value
        return values
      }
      if let current = changed, let index = entry.accessory {
        changes.append((write.id, value))
        publications += ports[index].publications(for: characteristic, value: value) { other in
          self.database.id(of: other.type, accessory: index).flatMap { current[$0] }
        }
      }
      results.append(HAPWriteResult(id: write.id, status: .success, value: write.wantsResponse ? value : nil))
    }
    for (value, port) in publications { publish(value, port) }
    if !changes.isEmpty, let writesChanged { writesChanged(writableValues) }
    if !changes.isEmpty { notifier.withLock { $0 }?.notify(changes, immediately: false, except: controller) }
    return results
  }

  func eventStatus(_ id: HAPCharacteristicID) async -> HAPStatus {
    guard let entry = database.entries[id] else { return .resourceDoesNotExist }
    return entry.characteristic.notifies ? .success : .notificationNotSupported
  }

  func identify() async { log("identify: the bridge was asked to identify itself (unpaired)") }

  func pairingStateChanged(_ state: HAPPairingState) async throws { try pairingsChanged(state) }

  /// "Lamp Brightness (2.11)" for logs.
  func describe(_ id: HAPCharacteristicID) -> String {
    guard let entry = database.entries[id] else { return "\(id.aid).\(id.iid)" }
    let owner = entry.accessory.map { ports[$0].accessory.name } ?? "bridge"
    return "\(owner) \(entry.characteristic.name) (\(id.aid).\(id.iid))"
  }
}
