import HomebridgeProtocol

/// The simulated homebridge-websocket plugin without I/O: accessories, cached values,
/// pending HomeKit reads and automations, and its answers to each client frame, with the
/// real plugin's texts. The server around it sends, debounces and prints.
struct HomebridgeModel: Sendable {
  struct Key: Sendable, Hashable, CustomStringConvertible {
    var accessory: String
    var characteristic: String
    var description: String { "\(accessory).\(characteristic)" }
  }

  /// What one step asks the server to do.
  struct Output: Sendable {
    /// Messages for the most recently connected client.
    var replies: [ServerMessage] = []
    /// HomeKit writes for the client (`set`), which the server may debounce.
    var homeKitWrites: [ServerMessage] = []
    /// HomeKit reads sent to the client; the server times them out.
    var homeKitReads: [Key] = []
    /// Lines for stdout.
    var lines: [String] = []
    /// Set when the frame would crash the real Homebridge: the server closes that connection.
    var refusal: String?
    /// The accessory list changed (save the cache).
    var accessoriesChanged = false

    mutating func respond(_ ack: Bool, _ message: String) { replies.append(.response(ack: ack, message: message)) }
  }

  private(set) var accessories: [SimulatedAccessory] = []
  var automations: [Automation] = []
  private(set) var pendingReads: Set<Key> = []

  init(accessories: [SimulatedAccessory] = [], automations: [Automation] = []) {
    self.accessories = accessories
    self.automations = automations
  }

  private func index(of name: String) -> Int? { accessories.firstIndex { $0.name == name } }

  // MARK: Client frames

  mutating func handle(text: String) -> Output {
    var output = Output()
    guard let json = JSONValue(jsonText: text), case .object(let members) = json else {
      output.refusal = "malformed JSON: \(Self.excerpt(text))"
      return output
    }
    guard let payload = members["payload"]?.objectValue else {
      output.refusal = "message without a payload object: \(Self.excerpt(text))"
      return output
    }
    let topic = members["topic"]?.stringValue ?? members["topic"].map(\.description) ?? "undefined"
    switch topic {
    case "add", "addAccessory": add(payload, &output)
    case "remove", "removeAccessory": remove(payload, &output)
    case "setValue", "set": setValue(payload, &output)
    case "callback": callback(payload, &output)
    case "get", "getAccessory", "getAccessories": get(payload, &output)
    default:
      let message = "topic '\(topic)' unknown."
      output.respond(false, message)
      output.lines.append(message)
    }
    return output
  }

  private mutating func add(_ payload: [String: JSONValue], _ output: inout Output) {
    guard let name = payload["name"]?.stringValue, !name.isEmpty else {
      output.refusal = "add without a name (the real plugin derives the UUID from it)"
      return
    }
    let serviceName = payload["service"]?.stringValue ?? payload["service"].map(\.description) ?? "undefined"
    let message: String
    if index(of: name) != nil {
      message = "name '\(name)' is already used."
      output.respond(false, message)
    } else if let service = ServiceCatalog.service(named: serviceName) {
      accessories.append(SimulatedAccessory(name: name, service: service, payload: payload))
      message = "accessory '\(name)' is added."
      output.respond(true, message)
      output.respond(true, "accessory '\(name)', accessoryinformation is set.")
      output.accessoriesChanged = true
    } else {
      message = "service '\(serviceName)' undefined."
      output.respond(false, message)
    }
    output.lines.append("add \(name) (\(serviceName)): \(message)")
  }

  private mutating func remove(_ payload: [String: JSONValue], _ output: inout Output) {
    let name = payload["name"]?.stringValue ?? "undefined"
    let message: String
    if let index = index(of: name) {
      accessories.remove(at: index)
      pendingReads = pendingReads.filter { $0.accessory != name }
      message = "accessory '\(name)' is removed."
      output.respond(true, message)
      output.accessoriesChanged = true
    } else {
      message = "accessory '\(name)' not found."
      output.respond(false, message)
    }
    output.lines.append("remove \(name): \(message)")
  }

  /// The real plugin's checks, in its order. Returns the accessory index, spec and value, or
  /// the error text; sets `refusal` for values that would crash it.
  private func validate(_ payload: [String: JSONValue], _ output: inout Output) -> Result<
    (Int, CharacteristicSpec, JSONValue), Rejection
  > {
    let name = payload["name"]?.stringValue ?? "undefined"
    let characteristic = payload["characteristic"]?.stringValue ?? "undefined"
    guard let index = index(of: name) else { return .failure(Rejection("name '\(name)' undefined.")) }
    guard let spec = accessories[index].characteristic(named: characteristic) else {
      return .failure(Rejection("characteristic '\(characteristic)' undefined."))
    }
    let value = payload["value"] ?? .null
    switch value {
    case .null:
      return .failure(Rejection("name '\(name)' value undefined."))
    case .string(let text):
      output.refusal = "string value \"\(Self.excerpt(text))\" for \(name).\(characteristic) (\(spec.format.rawValue))"
      return .failure(Rejection(""))
    case .array, .object:
      output.refusal = "value \(Self.excerpt(value.jsonText)) for \(name).\(characteristic) is not a HAP value"
      return .failure(Rejection(""))
    case .bool(let flag):
      return .success((index, spec, spec.format == .bool ? value : .number(flag ? 1 : 0)))
    case .number(let number):
      if spec.format == .bool { return .success((index, spec, .bool(number != 0))) }
      let parsed = spec.format.isInteger ? number.rounded(.towardZero) : number
      if let minValue = spec.minValue, parsed < minValue {
        return .failure(Rejection("value '\(JSONValue.number(number))' outside range"))
      }
      return .success((index, spec, .number(parsed)))
    }
  }

  struct Rejection: Error {
    var message: String
    init(_ message: String) { self.message = message }
  }

  private mutating func setValue(_ payload: [String: JSONValue], _ output: inout Output) {
    switch validate(payload, &output) {
    case .failure(let rejection):
      guard output.refusal == nil else { return }
      output.respond(false, rejection.message)
      output.lines.append("setValue \(Self.describeTarget(payload)): \(rejection.message)")
    case .success(let (index, spec, value)):
      let key = Key(accessory: accessories[index].name, characteristic: spec.name)
      var line = "setValue \(key) = \(value)"
      if let maxValue = spec.maxValue, let number = value.numberValue, number > maxValue {
        line += " (above the maximum \(JSONValue.number(maxValue)): accepted, the real plugin does not check it)"
      }
      output.lines.append(line)
      if pendingReads.remove(key) != nil { output.lines.append("homekit get \(key) answered: \(value)") }
      change(key, at: index, to: value, &output)
    }
  }

  private mutating func callback(_ payload: [String: JSONValue], _ output: inout Output) {
    switch validate(payload, &output) {
    case .failure(let rejection):
      // The real plugin only logs an invalid callback; the client gets no answer.
      guard output.refusal == nil else { return }
      output.lines.append("callback \(Self.describeTarget(payload)): \(rejection.message) (not answered)")
    case .success(let (index, spec, value)):
      let key = Key(accessory: accessories[index].name, characteristic: spec.name)
      accessories[index].values[spec.name] = value
      let answered = pendingReads.remove(key) != nil
      output.lines.append("callback \(key) = \(value)" + (answered ? " (answers HomeKit's get)" : " (no get pending)"))
    }
  }

  private func get(_ payload: [String: JSONValue], _ output: inout Output) {
    let name = payload["name"]?.stringValue ?? "all"
    if name == "all" {
      output.replies.append(.accessories(Dictionary(uniqueKeysWithValues: accessories.map { ($0.name, $0.summary) })))
    } else if let index = index(of: name) {
      output.replies.append(.accessories([name: accessories[index].summary]))
    } else {
      output.respond(false, "name '\(name)' undefined.")
    }
    output.lines.append("get \(name)")
  }

  /// Stores a value and runs the automations it triggers (HomeKit triggers fire on a change).
  private mutating func change(_ key: Key, at index: Int, to value: JSONValue, _ output: inout Output) {
    let old = accessories[index].values[key.characteristic]
    accessories[index].values[key.characteristic] = value
    guard old != value else { return }
    for automation in automations
    where automation.trigger.accessory == key.accessory && automation.trigger.characteristic == key.characteristic
      && automation.trigger.value == value
    {
      runScene(automation, &output)
    }
  }

  /// A scene's writes come from HomeKit: they go to the client as `set` and do not trigger
  /// further automations.
  private mutating func runScene(_ automation: Automation, _ output: inout Output) {
    output.lines.append("scene '\(automation.scene)' ran")
    for action in automation.actions {
      guard let index = index(of: action.accessory),
        let spec = accessories[index].characteristic(named: action.characteristic),
        let value = spec.conformed(action.value)
      else {
        output.lines.append("scene '\(automation.scene)': \(action) does not fit any accessory; skipped")
        continue
      }
      accessories[index].values[spec.name] = value
      output.homeKitWrites.append(.set(name: action.accessory, characteristic: spec.name, value: value))
    }
  }

  // MARK: HomeKit side

  mutating func homeKitSet(_ key: Key, to value: JSONValue) -> Output {
    var output = Output()
    guard let index = index(of: key.accessory) else {
      output.lines.append("error: no accessory '\(key.accessory)'")
      return output
    }
    guard let spec = accessories[index].characteristic(named: key.characteristic), spec.homeKitWritable else {
      output.lines.append("error: HomeKit cannot write \(key)")
      return output
    }
    guard let conformed = spec.conformed(value) else {
      output.lines.append("error: \(value) is not a \(spec.format.rawValue) value")
      return output
    }
    output.homeKitWrites.append(.set(name: key.accessory, characteristic: spec.name, value: conformed))
    change(key, at: index, to: conformed, &output)
    return output
  }

  mutating func homeKitGet(_ key: Key) -> Output {
    var output = Output()
    guard let index = index(of: key.accessory), accessories[index].characteristic(named: key.characteristic) != nil
    else {
      output.lines.append("error: no characteristic \(key)")
      return output
    }
    pendingReads.insert(key)
    output.replies.append(.get(name: key.accessory, characteristic: key.characteristic))
    output.homeKitReads.append(key)
    output.lines.append("homekit get \(key)")
    return output
  }

  /// The real plugin answers HomeKit from its cache after 2 s without a callback.
  mutating func homeKitReadTimedOut(_ key: Key) -> [String] {
    guard pendingReads.remove(key) != nil else { return [] }
    let cached = accessories.first { $0.name == key.accessory }?.values[key.characteristic]
    return ["homekit get \(key) timed out; HomeKit shows the cached value \(cached?.description ?? "blank")"]
  }

  func table() -> [String] {
    if accessories.isEmpty { return ["no accessories"] }
    return accessories.map { accessory in
      let values = accessory.characteristics.map { "\($0.name)=\(accessory.values[$0.name]?.description ?? "blank")" }
      return "\(accessory.name) (\(accessory.service.name)): " + values.joined(separator: " ")
    }
  }

  static func describeTarget(_ payload: [String: JSONValue]) -> String {
    "\(payload["name"]?.stringValue ?? "undefined").\(payload["characteristic"]?.stringValue ?? "undefined")"
  }

  static func excerpt(_ text: String) -> String {
    text.count > 120 ? String(text.prefix(120)) + "..." : text
  }
}
