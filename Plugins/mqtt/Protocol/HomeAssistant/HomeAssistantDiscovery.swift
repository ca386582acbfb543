import PatchbayValues

/// Home Assistant MQTT discovery for one instance: the retained config messages in HA's
/// documented schema, the state payloads HA reads and the commands it sends.
public struct HomeAssistantDiscovery: Sendable {
  public struct Announcement: Sendable, Equatable {
    public var topic: String
    public var payload: JSONValue
  }

  public let settings: HomeAssistantSettings
  public let instance: String
  /// The hub's kept id (HubIdentity): part of everything global in HA.
  public let hubID: String
  public let baseTopic: String
  public let statusTopic: String
  /// The hub's transitions, not retained: the hub's own device triggers listen here (a
  /// retained topic would fire them at every HA start and when the automation is made).
  public let eventTopic: String
  public let version: String

  public init(settings: HomeAssistantSettings, instance: String, hubID: String, baseTopic: String, version: String) {
    self.settings = settings
    self.instance = instance
    self.hubID = hubID
    self.baseTopic = baseTopic
    self.statusTopic = TopicFilter.join(baseTopic, "status")
    self.eventTopic = TopicFilter.join(baseTopic, "event")
    self.version = version
  }

  /// The node id in discovery topics, the device identifier and the prefix of unique ids:
  /// `patchbay_HUBID_INSTANCE`, so two hubs never merge into one HA device.
  public var nodeID: String { "patchbay_\(hubID)_\(instanceLevel)" }

  /// The object id (HA's suggested entity id) stays `patchbay_INSTANCE_NAME` as before hub ids:
  /// a single hub's entity ids (what automations name) survive the change of unique_id; a
  /// second hub's entities get HA's `_2` suffix.
  public func objectID(_ entity: HomeAssistantEntity) -> String { "patchbay_\(instanceLevel)_\(entity.name)" }

  var instanceLevel: String {
    String(instance.unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" })
  }

  /// Where HA announces itself; `online` there asks for every discovery config again.
  public var birthTopic: String { TopicFilter.join(settings.discoveryPrefix, "status") }

  public func stateTopic(_ entity: HomeAssistantEntity) -> String {
    TopicFilter.join(baseTopic, "ha/\(entity.name)/state")
  }
  public func commandTopic(_ entity: HomeAssistantEntity) -> String {
    TopicFilter.join(baseTopic, "ha/\(entity.name)/set")
  }
  public func actionTopic(_ entity: HomeAssistantEntity) -> String {
    TopicFilter.join(baseTopic, "ha/\(entity.name)/action")
  }
  /// The entity's own availability (`online`/`offline`, retained), for `available = true`.
  public func availabilityTopic(_ entity: HomeAssistantEntity) -> String {
    TopicFilter.join(baseTopic, "ha/\(entity.name)/available")
  }

  /// With devices of their own, the hub's device gets an entity too (its connection, from the
  /// status topic): HA registers a device only with an entity, and `via_device` names it.
  public static let hubStatusName = "hub_status"

  /// HA's trigger types for the button actions it can show.
  public static let triggerTypes: [(ButtonAction, String)] = [
    (.click, "button_short_press"), (.doubleClick, "button_double_press"), (.hold, "button_long_press"),
    (.up, "button_short_release"),
  ]

  /// The device an entity belongs to: the hub's, or one of `devices` connected through it.
  func device(for entity: HomeAssistantEntity) -> JSONValue {
    guard let name = entity.device, let own = settings.devices.first(where: { $0.name == name }) else { return device }
    var members: [(String, JSONValue)] = [
      ("identifiers", .array([.string("\(nodeID)_\(own.name)")])), ("name", .string(own.title)),
      ("manufacturer", .string(own.manufacturer)),
    ]
    if let model = own.model { members.append(("model", .string(model))) }
    if let area = own.area ?? settings.area { members.append(("suggested_area", .string(area))) }
    members.append(("via_device", .string(nodeID)))
    return .object(members)
  }

  var device: JSONValue {
    var members: [(String, JSONValue)] = [
      ("identifiers", .array([.string(nodeID)])), ("name", .string(settings.deviceName ?? "patchbay \(instance)")),
      ("manufacturer", .string("patchbay")), ("model", .string("mqtt plugin")), ("sw_version", .string(version)),
    ]
    if let area = settings.area { members.append(("suggested_area", .string(area))) }
    if let url = settings.configurationURL { members.append(("configuration_url", .string(url))) }
    return .object(members)
  }

  /// Who announced it, in every config (HA logs it with discovery problems).
  var origin: JSONValue { .object([("name", .string("patchbay")), ("sw_version", .string(version))]) }

  /// HA shows at most 255 characters of a state; longer text would make the entity `unknown`.
  public static let maxStateLength = 255

  /// The hub's status topic, and with `available` the entity's own too (both must say online:
  /// `availability_mode: all`). HA takes either form, never both.
  func availability(_ entity: HomeAssistantEntity) -> [(String, JSONValue)] {
    guard entity.available else {
      return [
        ("availability_topic", .string(statusTopic)), ("payload_available", .string("online")),
        ("payload_not_available", .string("offline")),
      ]
    }
    let topics = [statusTopic, availabilityTopic(entity)].map { topic -> JSONValue in
      .object([
        ("topic", .string(topic)), ("payload_available", .string("online")),
        ("payload_not_available", .string("offline")),
      ])
    }
    return [("availability", .array(topics)), ("availability_mode", .string("all"))]
  }

  /// The state topics the hub publishes retained (everything but a button's actions), and the
  /// entities' own availability topics.
  public func retainedStateTopics() -> [String] {
    settings.entities.filter { $0.component != .button }.map(stateTopic)
      + settings.entities.filter(\.available).map(availabilityTopic)
  }

  /// Every discovery config message, retained by the broker.
  public func announcements() -> [Announcement] {
    // The hub's device first: HA links `via_device` only to a device it registered already.
    (settings.devices.isEmpty ? [] : hubTriggerAnnouncements + [hubStatusAnnouncement])
      + settings.entities.filter { $0.device == nil }.flatMap(announcements(for:))
      + settings.entities.filter { $0.device != nil }.flatMap(announcements(for:))
  }

  /// The hub connecting and going away as device triggers of its own device, on the event
  /// topic (once per transition; the status topic is retained). HA registers a
  /// trigger's device as it reads the config, in order, while an entity's device waits for its
  /// platform to load: these come first, so a button's device (also a trigger) finds the hub's
  /// device there for `via_device`.
  var hubTriggerAnnouncements: [Announcement] {
    [("online", "turn_on"), ("offline", "turn_off")].map { payload, type in
      Announcement(
        topic: TopicFilter.join(
          settings.discoveryPrefix, "device_automation/\(nodeID)/\(Self.hubStatusName)_\(payload)/config"),
        payload: .object([
          ("automation_type", .string("trigger")), ("topic", .string(eventTopic)), ("payload", .string(payload)),
          ("type", .string(type)), ("subtype", .string("hub")), ("device", device), ("origin", origin),
        ]))
    }
  }

  /// The hub's connection as a diagnostic binary sensor of its own device (see `hubStatusName`).
  var hubStatusAnnouncement: Announcement {
    let objectID = "patchbay_\(instanceLevel)_\(Self.hubStatusName)"
    return Announcement(
      topic: TopicFilter.join(settings.discoveryPrefix, "binary_sensor/\(nodeID)/\(Self.hubStatusName)/config"),
      payload: .object([
        ("name", .string("Hub connection")), ("unique_id", .string("\(nodeID)_\(Self.hubStatusName)")),
        ("object_id", .string(objectID)), ("default_entity_id", .string("binary_sensor.\(objectID)")),
        ("state_topic", .string(statusTopic)), ("payload_on", .string("online")), ("payload_off", .string("offline")),
        ("device_class", .string("connectivity")), ("entity_category", .string("diagnostic")),
        ("device", device), ("origin", origin),
      ]))
  }

  func announcements(for entity: HomeAssistantEntity) -> [Announcement] {
    let prefix = settings.discoveryPrefix
    if entity.component == .button {
      return Self.triggerTypes.map { action, type in
        Announcement(
          topic: TopicFilter.join(prefix, "device_automation/\(nodeID)/\(entity.name)_\(action.name)/config"),
          payload: .object([
            ("automation_type", .string("trigger")), ("topic", .string(actionTopic(entity))),
            ("payload", .string(action.name)), ("type", .string(type)), ("subtype", .string(entity.subtype)),
            ("device", device(for: entity)), ("origin", origin),
          ]))
      }
    }
    var members: [(String, JSONValue)] = [
      ("name", .string(entity.title)), ("unique_id", .string("\(nodeID)_\(entity.name)")),
      ("object_id", .string(objectID(entity))),
      // HA 2025.10 replaces object_id with default_entity_id; earlier releases drop the key
      // unread (their discovery schemas REMOVE_EXTRA), so both go.
      ("default_entity_id", .string("\(entity.component.rawValue).\(objectID(entity))")),
      ("state_topic", .string(stateTopic(entity))),
    ]
    if let icon = entity.icon { members.append(("icon", .string(icon))) }
    if let category = entity.entityCategory { members.append(("entity_category", .string(category))) }
    if let seconds = entity.expireAfter { members.append(("expire_after", .integer(Int64(seconds)))) }
    // Commands at QoS 1, as the hub subscribes to them and sends everything else (HA's default is 0).
    if entity.commandPort != nil { members.append(("qos", .integer(1))) }
    if let optimistic = entity.optimistic { members.append(("optimistic", .bool(optimistic))) }
    switch entity.component {
    case .switch:
      members += [
        ("command_topic", .string(commandTopic(entity))), ("payload_on", .string("ON")),
        ("payload_off", .string("OFF")),
        ("state_on", .string("ON")), ("state_off", .string("OFF")),
      ]
      if let deviceClass = entity.deviceClass { members.append(("device_class", .string(deviceClass))) }
    case .light:
      // `supported_color_modes` alone is today's schema. HA before 2024.4 refuses it without
      // `color_mode: true` (one voluptuous inclusion group), 2025.3 and later log an ERROR for
      // that key at every discovery: it goes only with `legacy_color_mode`. No legacy flags
      // (`hs`, `color_temp`, `rgb`, `xy`): before 2024.4 they cannot be combined with
      // color_mode, and 2025.3 removed them.
      members += [
        ("schema", .string("json")), ("command_topic", .string(commandTopic(entity))),
        ("brightness", .bool(entity.colorModes != ["onoff"])), ("brightness_scale", .integer(100)),
      ]
      if settings.legacyColorMode { members.append(("color_mode", .bool(true))) }
      members.append(("supported_color_modes", .array(entity.colorModes.map(JSONValue.string))))
      if entity.colorModes.contains("color_temp") {
        members += [
          ("min_mireds", .integer(Int64(entity.mireds.lowerBound))),
          ("max_mireds", .integer(Int64(entity.mireds.upperBound))),
        ]
      }
    case .binarySensor:
      members += [("payload_on", .string("ON")), ("payload_off", .string("OFF"))]
      if let deviceClass = entity.deviceClass { members.append(("device_class", .string(deviceClass))) }
    case .sensor:
      if let deviceClass = entity.deviceClass { members.append(("device_class", .string(deviceClass))) }
      if let unit = entity.unit { members.append(("unit_of_measurement", .string(unit))) }
      if let stateClass = entity.stateClass { members.append(("state_class", .string(stateClass))) }
      if let precision = entity.precision {
        members.append(("suggested_display_precision", .integer(Int64(precision))))
      }
    case .button:
      break
    }
    members += availability(entity) + [("device", device(for: entity)), ("origin", origin)]
    return [
      Announcement(
        topic: TopicFilter.join(prefix, "\(entity.component.rawValue)/\(nodeID)/\(entity.name)/config"),
        payload: .object(members))
    ]
  }

  /// What a value on the entity's state port is published as, and where (nil: nothing to send).
  public func statePublish(_ value: Value, for entity: HomeAssistantEntity) -> (
    topic: String, payload: String, retain: Bool
  )? {
    switch (entity.component, value) {
    case (.switch, .bool(let on)), (.binarySensor, .bool(let on)): return (stateTopic(entity), on ? "ON" : "OFF", true)
    case (.sensor, .number(let number)): return (stateTopic(entity), JSONValue.number(number).description, true)
    case (.sensor, .integer(let integer)): return (stateTopic(entity), String(integer), true)
    case (.sensor, .text(let text)): return (stateTopic(entity), String(text.prefix(Self.maxStateLength)), true)
    case (.light, .light(let light)):
      return (stateTopic(entity), Self.lightState(light, for: entity).description, true)
    case (.button, .button(let button)):
      guard Self.triggerTypes.contains(where: { $0.0 == button.action }) else { return nil }
      return (actionTopic(entity), button.action.name, false)
    default: return nil
    }
  }

  /// What a value on the entity's `available` port is published as.
  public func availabilityPublish(_ available: Bool, for entity: HomeAssistantEntity) -> (
    topic: String, payload: String
  ) {
    (availabilityTopic(entity), available ? "online" : "offline")
  }

  /// The light's state in the modes it announced: no colour for an `onoff` or `brightness`
  /// light, colour temperature within its mired range.
  static func lightState(_ light: LightCommand, for entity: HomeAssistantEntity) -> JSONValue {
    let modes = entity.colorModes
    var members: [(String, JSONValue)] = []
    if let on = light.on { members.append(("state", .string(on ? "ON" : "OFF"))) }
    // Clamped and finite before any conversion to an integer: a hub value of any size (or a
    // NaN from another plugin) must not trap.
    if let brightness = light.brightness, brightness.isFinite, modes != ["onoff"] {
      members.append(("brightness", .integer(Int64(min(max(brightness, 0), 100).rounded()))))
    }
    if let color = light.color?.normalized, modes.contains("hs") {
      members.append(("color_mode", .string("hs")))
      members.append(("color", .object([("h", .number(color.hue)), ("s", .number(color.saturation))])))
    } else if let mired = light.colorTemperature, mired.isFinite, modes.contains("color_temp") {
      let range = entity.mireds
      members.append(("color_mode", .string("color_temp")))
      members.append(("color_temp", .integer(Int64(min(max(mired, range.lowerBound), range.upperBound).rounded()))))
    }
    return .object(members)
  }

  /// An HA command on the entity's command topic as a hub value. Values outside what a light
  /// takes are refused, but for a colour temperature, which is clamped into the light's range
  /// (HA 2025 does not limit `color_temp_kelvin` to it, and clamps for its own lights) and
  /// told to `note`. Every reason shows values as JSON text.
  public func command(_ payload: [UInt8], for entity: HomeAssistantEntity, note: (String) -> Void = { _ in })
    throws(PayloadError) -> Value
  {
    guard let decoded = String(validating: payload, as: UTF8.self) else {
      throw PayloadError("payload of \(payload.count) bytes is not UTF-8 text")
    }
    let text = decoded.trimmingWhitespace
    switch entity.component {
    case .switch:
      switch text.uppercased() {
      case "ON": return .bool(true)
      case "OFF": return .bool(false)
      default: throw PayloadError("'\(text.prefix(40))' is not ON or OFF")
      }
    case .light:
      guard let json = JSONValue.parse(text), case .object = json else {
        throw PayloadError("'\(text.prefix(40))' is not a JSON object")
      }
      return .light(try Self.lightCommand(json, for: entity, note: note))
    case .sensor, .binarySensor, .button:
      throw PayloadError("\(entity.component.rawValue) takes no commands")
    }
  }

  static func lightCommand(
    _ json: JSONValue, for entity: HomeAssistantEntity, note: (String) -> Void = { _ in }
  ) throws(PayloadError) -> LightCommand {
    func shown(_ value: JSONValue) -> String { String(value.description.prefix(40)) }
    var light = LightCommand()
    if let state = json["state"] {
      guard case .string(let word) = state, ["ON", "OFF"].contains(word.uppercased()) else {
        throw PayloadError("state \(shown(state)) is not \"ON\" or \"OFF\"")
      }
      light.on = word.uppercased() == "ON"
    }
    if let brightness = json["brightness"] {
      guard let percent = brightness.doubleValue, (0...100).contains(percent) else {
        throw PayloadError("brightness \(shown(brightness)) is not a number 0...100 (percent)")
      }
      light.brightness = percent
    }
    if let color = json["color"] {
      guard let hue = color["h"]?.doubleValue, let saturation = color["s"]?.doubleValue else {
        throw PayloadError("color \(shown(color)) has no numbers h and s")
      }
      guard (0...360).contains(hue), (0...100).contains(saturation) else {
        throw PayloadError(
          "color hue \(shown(.number(hue))) / saturation \(shown(.number(saturation))) out of range (0...360, 0...100)")
      }
      light.color = HSBColor(hue: hue, saturation: saturation, brightness: light.brightness ?? 100).normalized
    }
    if let mired = json["color_temp"] {
      let range = entity.mireds
      let bounds = "\(Int(range.lowerBound))...\(Int(range.upperBound))"
      guard let value = mired.doubleValue, value.isFinite else {
        throw PayloadError("color_temp \(shown(mired)) is not a mired value \(bounds)")
      }
      let clamped = min(max(value, range.lowerBound), range.upperBound)
      if clamped != value {
        note(
          "color_temp \(shown(mired)) is outside \(entity.name)'s \(bounds) mired; clamped to \(Int(clamped))")
      }
      light.colorTemperature = clamped
    }
    if let transition = json["transition"] {
      guard let seconds = transition.doubleValue, seconds >= 0, seconds < 86400 else {
        throw PayloadError("transition \(shown(transition)) is not seconds 0...86400")
      }
      light.transitionMs = UInt32((seconds * 1000).rounded())
    }
    return light
  }
}
