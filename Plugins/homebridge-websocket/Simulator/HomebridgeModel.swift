import HomebridgeProtocol
import PatchbayValues

/// The simulated homebridge-websocket plugin without I/O: accessories, cached values and
/// automations, and its answers to each client frame, with the real plugin's texts (0.2.2).
/// The server around it sends, debounces and prints.
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
    /// HomeKit reads (`get`) for the client; HomeKit has already been answered from the cache.
    var homeKitReads: [ServerMessage] = []
    /// Lines for stdout.
    var lines: [String] = []
    /// Set when the frame would crash the real Homebridge: the server closes that connection.
    var refusal: String?
    /// Set when the real Homebridge would die of this frame (an uncaught exception ends the
    /// Node process): the server ends the whole simulator. The text is Node's error.
    var crash: String?
    /// The accessory list changed (save the cache).
    var accessoriesChanged = false

    mutating func respond(_ ack: Bool, _ message: String) { replies.append(.response(ack: ack, message: message)) }
  }

  private(set) var accessories: [SimulatedAccessory] = []
  var automations: [Automation] = []

  init(accessories: [SimulatedAccessory] = [], automations: [Automation] = []) {
    self.accessories = accessories
    self.automations = automations
  }

  private func index(of name: String) -> Int? { accessories.firstIndex { $0.name == name } }

  // MARK: Client frames

  mutating func handle(text: String) -> Output {
    var output = Output()
    guard let members = JSONValue.parse(text)?.objectValue else {
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
    // The real plugin looks the name up in a plain JS object: `constructor` and the other
    // members every object inherits look like accessories that already exist.
    if index(of: name) != nil || PrototypePropertyNames.contains(name) {
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
      message = "accessory '\(name)' is removed."
      output.respond(true, message)
      output.accessoriesChanged = true
    } else {
      message = "accessory '\(name)' not found."
      output.respond(false, message)
    }
    output.lines.append("remove \(name): \(message)")
  }

  /// The real plugin's checks, in its order (name, characteristic known to HAP, value present,
  /// characteristic of this accessory's service, range). Returns the accessory index, spec
  /// and value, or the error text; sets `refusal` for values that would crash it and `crash`
  /// for a name that kills it.
  private func validate(_ payload: [String: JSONValue], _ output: inout Output) -> Result<
    (Int, CharacteristicSpec, JSONValue), Rejection
  > {
    let name = payload["name"]?.stringValue ?? "undefined"
    let characteristic = payload["characteristic"]?.stringValue ?? "undefined"
    // `typeof accessories[name]` is "function" for an inherited member: it passes this check.
    let inherited = PrototypePropertyNames.contains(name)
    let found = index(of: name)
    guard found != nil || inherited else { return .failure(Rejection("name '\(name)' undefined.")) }
    guard Self.knownCharacteristics.contains(characteristic) else {
      return .failure(Rejection("characteristic '\(characteristic)' undefined."))
    }
    let value = payload["value"] ?? .null
    if value == .null { return .failure(Rejection("name '\(name)' value undefined.")) }
    guard let index = found, !inherited else {
      // `accessories[name].service` of an inherited member is undefined.
      output.crash = "TypeError: Cannot read properties of undefined (reading 'getCharacteristic')"
      return .failure(Rejection(""))
    }
    guard let spec = accessories[index].characteristic(named: characteristic) else {
      if accessories[index].service.characteristic(named: characteristic) != nil {
        // An optional characteristic the add did not enable.
        return .failure(Rejection("characteristic '\(characteristic)' undefined."))
      }
      return .failure(Rejection("name '\(name)' characteristic do not match."))
    }
    switch value {
    case .null:
      return .failure(Rejection("name '\(name)' value undefined."))
    case .string(let text):
      output.refusal = "string value \"\(Self.excerpt(text))\" for \(name).\(characteristic) (\(spec.format.rawValue))"
      return .failure(Rejection(""))
    case .array, .object:
      output.refusal = "value \(Self.excerpt(value.description)) for \(name).\(characteristic) is not a HAP value"
      return .failure(Rejection(""))
    case .bool(let flag):
      return .success((index, spec, spec.format == .bool ? value : .number(flag ? 1 : 0)))
    case .integer, .number:
      let number = value.doubleValue ?? 0
      if spec.format == .bool { return .success((index, spec, .bool(number != 0))) }
      let parsed = spec.format.isInteger ? number.rounded(.towardZero) : number
      if let minValue = spec.minValue, parsed < minValue {
        return .failure(Rejection("value '\(JSONValue.number(number).description)' outside range"))
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
      guard output.refusal == nil, output.crash == nil else { return }
      output.respond(false, rejection.message)
      output.lines.append("setValue \(Self.describeTarget(payload)): \(rejection.message)")
    case .success(let (index, spec, value)):
      let key = Key(accessory: accessories[index].name, characteristic: spec.name)
      var line = "setValue \(key) = \(value.description)"
      if let maxValue = spec.maxValue, let number = value.doubleValue, number > maxValue {
        line +=
          " (above the maximum \(JSONValue.number(maxValue).description): accepted, the real plugin does not check it)"
      }
      output.lines.append(line)
      change(key, at: index, to: value, &output)
    }
  }

  private mutating func callback(_ payload: [String: JSONValue], _ output: inout Output) {
    switch validate(payload, &output) {
    case .failure(let rejection):
      // The real plugin only logs an invalid callback; the client gets no answer.
      guard output.refusal == nil, output.crash == nil else { return }
      output.lines.append("callback \(Self.describeTarget(payload)): \(rejection.message) (not answered)")
    case .success(let (index, spec, value)):
      // Only the cache changes; HomeKit already had its answer and sees this at its next read.
      let key = Key(accessory: accessories[index].name, characteristic: spec.name)
      accessories[index].values[spec.name] = value
      output.lines.append("callback \(key) = \(value.description) (cached for HomeKit's next read)")
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
      output.lines.append("error: \(value.description) is not a \(spec.format.rawValue) value")
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
    // 0.2.2 answers HomeKit from its cache at once and sends `get` to the client at the same
    // moment; the client's `callback` only refreshes the cache for the next read.
    let cached = accessories[index].values[key.characteristic]
    output.homeKitReads.append(.get(name: key.accessory, characteristic: key.characteristic))
    output.lines.append("homekit get \(key): HomeKit shows the cached value \(cached?.description ?? "blank")")
    return output
  }

  func table() -> [String] {
    if accessories.isEmpty { return ["no accessories"] }
    return accessories.map { accessory in
      let values = accessory.characteristics.map { "\($0.name)=\(accessory.values[$0.name]?.description ?? "blank")" }
      return "\(accessory.name) (\(accessory.service.name)): " + values.joined(separator: " ")
    }
  }

  /// Every characteristic name the simulated HAP knows (the real one knows many more).
  static let knownCharacteristics: Set<String> = Set(
    ServiceCatalog.services.flatMap { ($0.required + $0.optional).map(\.name) })

  static func describeTarget(_ payload: [String: JSONValue]) -> String {
    "\(payload["name"]?.stringValue ?? "undefined").\(payload["characteristic"]?.stringValue ?? "undefined")"
  }

  static func excerpt(_ text: String) -> String {
    text.count > 120 ? String(text.prefix(120)) + "..." : text
  }
}
