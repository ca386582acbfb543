import Foundation
import HueProtocol
import PatchbayValues

/// What a bridge holds and how it answers: lights, groups (and group 0), users, the link
/// button, validation and rate limits. A value: `SimulatedBridge` keeps it behind one lock.
struct BridgeState: Sendable {
  private var lights: [String: HueLight]
  private var groups: [String: HueGroup]
  private var usernames: Set<String>
  private var linkPressedAt: Double?
  private var latency = 0
  private var lightLimiter: RateLimiter
  private var groupLimiter: RateLimiter
  private(set) var counters: [String: Int] = [:]
  let settings: SimulatedBridge.Settings
  let record: CommandRecord

  init(
    lights: [String: HueLight], groups: [String: HueGroup], usernames: Set<String>,
    settings: SimulatedBridge.Settings, record: CommandRecord
  ) {
    self.lights = lights
    self.groups = groups
    self.usernames = usernames
    self.settings = settings
    self.record = record
    lightLimiter = RateLimiter(perSecond: settings.lightRate)
    groupLimiter = RateLimiter(perSecond: settings.groupRate)
  }

  typealias Answer = SimulatedBridge.Answer
  static var clock: Double { Date().timeIntervalSince1970 }

  // MARK: HTTP

  /// Answers one request. `path` is the URL path without query.
  mutating func handle(method: String, path: String, body: [UInt8]) -> Answer {
    let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    guard parts.first == "api" else {
      return .errors([HueAPIError(.resourceNotAvailable, address: path, detail: "resource, \(path), not available")])
    }
    if parts.count == 1 {
      guard method == "POST" else { return methodNotAvailable("/", method) }
      return pair(body)
    }
    let username = parts[1]
    let resource = Array(parts.dropFirst(2))
    guard usernames.contains(username) else {
      return .errors([
        HueAPIError(.unauthorizedUser, address: "/" + resource.joined(separator: "/"), detail: "unauthorized user")
      ])
    }
    return route(method: method, resource: resource, body: body)
  }

  private mutating func route(method: String, resource: [String], body: [UInt8]) -> Answer {
    let address = "/" + resource.joined(separator: "/")
    switch (method, resource.count, resource.first) {
    case ("GET", 0, _):
      return .json(.sortedObject(["lights": lightsJSON, "groups": groupsJSON, "config": configJSON]))
    case ("GET", 1, "lights"): return .json(lightsJSON)
    case ("GET", 1, "groups"): return .json(groupsJSON)
    case ("GET", 1, "config"): return .json(configJSON)
    case ("GET", 2, "lights"):
      guard let light = lights[resource[1]] else { return notAvailable(address) }
      return .json(light.json)
    case ("GET", 2, "groups"):
      guard let json = groupJSON(resource[1]) else { return notAvailable(address) }
      return .json(json)
    case ("PUT", 3, "lights") where resource[2] == "state":
      guard lights[resource[1]] != nil else { return notAvailable("/lights/\(resource[1])") }
      return command(kind: "light", id: resource[1], address: address, body: body)
    case ("PUT", 3, "groups") where resource[2] == "action":
      guard resource[1] == "0" || groups[resource[1]] != nil else { return notAvailable("/groups/\(resource[1])") }
      return command(kind: "group", id: resource[1], address: address, body: body)
    default:
      let known = ["lights", "groups", "config"].contains(resource.first ?? "")
      return known && resource.count <= 3 ? methodNotAvailable(address, method) : notAvailable(address)
    }
  }

  private func notAvailable(_ address: String) -> Answer {
    .errors([HueAPIError(.resourceNotAvailable, address: address, detail: "resource, \(address), not available")])
  }

  private func methodNotAvailable(_ address: String, _ method: String) -> Answer {
    .errors([
      HueAPIError(
        .methodNotAvailable, address: address, detail: "method, \(method), not available for resource, \(address)")
    ])
  }

  // MARK: Pairing

  private mutating func pair(_ body: [UInt8]) -> Answer {
    guard let json = JSONValue(data: Data(body)), let object = json.objectValue else {
      return .errors([HueAPIError(.invalidJSON, address: "", detail: "body contains invalid json")])
    }
    guard let deviceType = object["devicetype"] else {
      return .errors([HueAPIError(.missingParameters, address: "/", detail: "invalid/missing parameters in body")])
    }
    guard let text = deviceType.stringValue, (1...40).contains(text.count) else {
      return .errors([
        HueAPIError(
          .invalidValue, address: "/devicetype", detail: "invalid value, \(deviceType.text), for parameter, devicetype")
      ])
    }
    guard let pressed = linkPressedAt, Self.clock - pressed <= settings.linkWindowSeconds else {
      counters["link-refused", default: 0] += 1
      return .errors([HueAPIError(.linkButtonNotPressed, address: "", detail: "link button not pressed")])
    }
    let username = (0..<40).map { _ in "0123456789abcdefABCDEF".randomElement()! }.map(String.init).joined()
    usernames.insert(username)
    var success: [String: JSONValue] = ["username": .string(username)]
    if object["generateclientkey"]?.boolValue == true {
      success["clientkey"] = .string(
        (0..<32).map { _ in "0123456789ABCDEF".randomElement()! }.map(String.init).joined())
    }
    return .json(.array([.sortedObject(["success": .sortedObject(success)])]))
  }

  // MARK: Commands

  private mutating func command(kind: String, id: String, address: String, body: [UInt8]) -> Answer {
    let now = Self.clock
    guard let json = JSONValue(data: Data(body)), let object = json.objectValue else {
      record.append(
        time: now, kind: kind, id: id, body: .string(String(decoding: body.prefix(200), as: UTF8.self)),
        outcome: "invalid", errors: 1)
      return .errors([HueAPIError(.invalidJSON, address: address, detail: "body contains invalid json")])
    }
    let admitted = kind == "group" ? groupLimiter.admit(now: now) : lightLimiter.admit(now: now)
    let (valid, errors) = StateValidator.validate(object, prefix: address)
    if !admitted {
      switch settings.overLimit {
      case .drop:
        counters["dropped", default: 0] += 1
        record.append(time: now, kind: kind, id: id, body: json, outcome: "dropped", errors: errors.count)
        // Older bridges answer success and never apply it.
        return .json(.array(successes(valid, address).map(\.json) + errors.map(\.json)))
      case .tooManyRequests, .unavailable:
        counters["rejected", default: 0] += 1
        record.append(time: now, kind: kind, id: id, body: json, outcome: "rejected", errors: errors.count)
        let status = settings.overLimit == .tooManyRequests ? 429 : 503
        return Answer(
          status: status, body: "<html><body><h1>\(status) Too busy</h1></body></html>", contentType: "text/html")
      }
    }
    var results: [HueResult] = []
    if kind == "light" {
      results = apply(valid, toLight: id, address: address)
    } else {
      let members = id == "0" ? Array(lights.keys) : groups[id]?.lights ?? []
      for member in members { _ = apply(valid, toLight: member, address: address) }
      results = successes(valid, address)
    }
    let allErrors = errors + results.errors
    counters["accepted-\(kind)", default: 0] += 1
    record.append(time: now, kind: kind, id: id, body: json, outcome: "accepted", errors: allErrors.count)
    return .json(
      .array(results.filter { if case .success = $0 { true } else { false } }.map(\.json) + allErrors.map(\.json)))
  }

  private func successes(_ valid: [String: JSONValue], _ address: String) -> [HueResult] {
    valid.sorted { $0.key < $1.key }.map { .success(address: "\(address)/\($0.key)", value: $0.value) }
  }

  /// Sets the valid attributes on a light. An off light refuses everything but `on` (201)
  /// unless the same command turns it on; `on: false` comes last, so a fade-out with a new
  /// brightness works. In a group action, members simply skip what they refuse.
  private mutating func apply(_ valid: [String: JSONValue], toLight id: String, address: String) -> [HueResult] {
    guard var light = lights[id] else { return [] }
    var results: [HueResult] = []
    let turnsOn = valid["on"]?.boolValue == true
    let isOn = light.state.on || turnsOn
    for (key, value) in valid.sorted(by: { $0.key < $1.key }) {
      let attributeAddress = "\(address)/\(key)"
      if StateValidator.needsOn.contains(key) && !isOn {
        results.append(
          .failure(
            HueAPIError(
              .deviceIsOff, address: attributeAddress,
              detail: "parameter, \(key), is not modifiable. Device is set to off.")))
        continue
      }
      results.append(.success(address: attributeAddress, value: value))
      // An unreachable bulb never hears the command, though the bridge accepts it.
      guard light.state.reachable else { continue }
      Self.set(key, value, on: &light.state)
    }
    if light.state.reachable, let on = valid["on"]?.boolValue { light.state.on = on }
    change(id, to: light)
    return results
  }

  static func set(_ key: String, _ value: JSONValue, on state: inout HueLightState) {
    let number = value.integerValue ?? 0
    switch key {
    case "bri": state.bri = number
    case "hue":
      state.hue = number
      state.colorMode = .hueSaturation
    case "sat":
      state.sat = number
      state.colorMode = .hueSaturation
    case "ct":
      state.ct = number
      state.colorMode = .colorTemperature
    case "xy": state.colorMode = .xy
    case "bri_inc": state.bri = min(254, max(1, (state.bri ?? 1) + number))
    case "sat_inc": state.sat = min(254, max(0, (state.sat ?? 0) + number))
    case "hue_inc": state.hue = (((state.hue ?? 0) + number) % 65536 + 65536) % 65536
    case "ct_inc": state.ct = min(500, max(153, (state.ct ?? 153) + number))
    default: break
    }
  }

  // MARK: JSON

  private var lightsJSON: JSONValue { .sortedObject(lights.mapValues(\.json)) }

  private var groupsJSON: JSONValue {
    .sortedObject(Dictionary(uniqueKeysWithValues: groups.keys.compactMap { id in groupJSON(id).map { (id, $0) } }))
  }

  private func groupJSON(_ id: String) -> JSONValue? {
    let group: HueGroup
    if id == "0" {
      group = HueGroup(
        name: "Group 0", type: "LightGroup", lights: lights.keys.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) })
    } else {
      guard let found = groups[id] else { return nil }
      group = found
    }
    let states = group.lights.compactMap { lights[$0]?.state }
    let anyOn = states.contains(where: \.on)
    let allOn = !states.isEmpty && states.allSatisfy(\.on)
    let action = states.first?.json ?? .sortedObject(["on": .bool(false)])
    return .sortedObject([
      "name": .string(group.name), "type": .string(group.type), "lights": .array(group.lights.map { .string($0) }),
      "action": action, "state": .sortedObject(["any_on": .bool(anyOn), "all_on": .bool(allOn)]),
    ])
  }

  private var configJSON: JSONValue {
    .sortedObject([
      "name": .string("patchbay simulated bridge"), "bridgeid": .string("001788FFFE000000"),
      "apiversion": .string("1.50.0"), "swversion": .string("1950207110"), "modelid": .string("BSB002"),
      "linkbutton": .bool(linkPressedAt.map { Self.clock - $0 <= settings.linkWindowSeconds } ?? false),
    ])
  }

  // MARK: Control (behind the hub's back)

  mutating func pressLinkButton() { linkPressedAt = Self.clock }

  var latencyMilliseconds: Int { latency }
  mutating func setLatency(milliseconds: Int) { latency = max(0, milliseconds) }

  mutating func setLight(_ id: String, _ values: [String: JSONValue]) throws(ControlError) {
    guard var light = lights[id] else { throw ControlError("no light \(id)") }
    let (valid, errors) = StateValidator.validate(values, prefix: "/lights/\(id)/state")
    if let error = errors.first { throw ControlError(error.detail) }
    for (key, value) in valid { Self.set(key, value, on: &light.state) }
    if let on = valid["on"]?.boolValue { light.state.on = on }
    change(id, to: light)
  }

  mutating func setReachable(_ id: String, _ reachable: Bool) throws(ControlError) {
    guard var light = lights[id] else { throw ControlError("no light \(id)") }
    light.state.reachable = reachable
    change(id, to: light)
  }

  /// Stores a light, and says so when its state changed and the settings ask for it (under
  /// the bridge's lock: the line comes after the change and before the next).
  private mutating func change(_ id: String, to light: HueLight) {
    let changed = lights[id]?.state != light.state
    lights[id] = light
    if changed && settings.printsLightStates { say("light-state \(id) \(light.state.json.text)") }
  }

  func lightJSON(_ id: String) -> JSONValue? { lights[id]?.json }
  var allLightsJSON: JSONValue { lightsJSON }
  var counterText: String {
    ["accepted-light", "accepted-group", "dropped", "rejected", "link-refused"].map {
      "\($0)=\(counters[$0, default: 0])"
    }
    .joined(separator: " ")
  }
}
