import HueProtocol
import PatchbayPluginKit

extension HueConfig: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case bridge, username
    case pollInterval = "poll_interval_s"
    case groupRate = "group_rate"
    case lightRate = "light_rate"
    case maxInFlight = "max_in_flight"
    case requestTimeout = "request_timeout_s"
    case retryMax = "retry_max_s"
    case groups
  }

  init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    let bridge = try table.decode(String.self, forKey: .bridge)
    do throws(BridgeAddressError) {
      let address = try BridgeAddress(parsing: bridge)
      (host, port) = (address.host, address.port)
    } catch {
      throw PluginError.config("bridge '\(bridge)': \(error.description)")
    }
    username = try table.decode(String.self, forKey: .username)
    guard (1...80).contains(username.count),
      username.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-")
      })
    else {
      // Never echo the value: it is a secret.
      throw PluginError.config("username must be the 1 to 80 letters, digits or '-' that `patchbay hue pair` printed")
    }
    pollIntervalSeconds =
      try table.decodeIfPresent(Double.self, forKey: .pollInterval, in: 0.2...3600, unit: " s") ?? pollIntervalSeconds
    groupRate =
      try table.decodeIfPresent(Double.self, forKey: .groupRate, in: 0.05...50, unit: " commands/s") ?? groupRate
    lightRate =
      try table.decodeIfPresent(Double.self, forKey: .lightRate, in: 0.1...100, unit: " commands/s") ?? lightRate
    maxInFlight = try table.decodeIfPresent(Int.self, forKey: .maxInFlight, in: 1...16) ?? maxInFlight
    requestTimeoutSeconds =
      try table.decodeIfPresent(Double.self, forKey: .requestTimeout, in: 0.5...120, unit: " s")
      ?? requestTimeoutSeconds
    retryMaxSeconds =
      try table.decodeIfPresent(Double.self, forKey: .retryMax, in: 0.5...600, unit: " s") ?? retryMaxSeconds

    guard table.contains(.groups) else {
      throw PluginError.config("missing required key 'groups' (an array of { name, id | bridge_group | lights })")
    }
    guard let list = try? table.nestedUnkeyedContainer(forKey: .groups), list.count ?? 0 > 0 else {
      throw PluginError.config("groups must be a non-empty array of tables like { name = \"living\", id = \"1\" }")
    }
    var names: Set<String> = []
    for (index, group) in try table.decode([Group].self, forKey: .groups).enumerated() {
      guard names.insert(group.name).inserted else {
        throw PluginError.config("groups.\(index).name '\(group.name)' is used twice")
      }
      groups.append(group)
    }
  }
}

extension HueConfig.Group: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case name, id
    case bridgeGroup = "bridge_group"
    case lights
    case exposeLights = "expose_lights"
    case lightNames = "light_names"
  }

  init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    let path = decoder.keyPath
    name = try HueConfig.portName(table.decode(String.self, forKey: .name), key: "\(path).name")
    let id = try table.decodeIfPresent(BridgeID.self, forKey: .id)?.text
    let bridgeName = try table.decodeIfPresent(String.self, forKey: .bridgeGroup)
    let lightIDs = try table.decodeIfPresent([BridgeID].self, forKey: .lights)?.map(\.text) ?? []
    for (index, lightID) in lightIDs.enumerated() where lightIDs[..<index].contains(lightID) {
      throw PluginError.config("\(path).lights: light \(lightID) is listed twice")
    }
    exposeLights = try table.decodeIfPresent(Bool.self, forKey: .exposeLights) ?? false
    let names = try table.decodeIfPresent([String: String].self, forKey: .lightNames) ?? [:]

    switch (id, bridgeName) {
    case (let id?, nil): source = .bridgeGroup(id: id)
    case (nil, let bridgeName?): source = .bridgeGroupNamed(bridgeName)
    case (nil, nil):
      guard !lightIDs.isEmpty else {
        throw PluginError.config(
          "\(path) needs one of id (a bridge group id), bridge_group (its name) or lights (light ids)")
      }
      source = .lights
    case (.some, .some):
      throw PluginError.config("\(path) has both id and bridge_group; keep one")
    }
    if exposeLights && lightIDs.isEmpty {
      throw PluginError.config(
        "\(path).expose_lights needs \(path).lights = [\"1\", \"2\", ...]: member ports are declared at start, before the bridge is read"
      )
    }
    for key in names.keys.sorted() where !lightIDs.contains(key) {
      throw PluginError.config("\(path).light_names.\(key): light \(key) is not in \(path).lights")
    }
    members = []
    for lightID in lightIDs {
      let memberName =
        try names[lightID].map { try HueConfig.portName($0, key: "\(path).light_names.\(lightID)") }
        ?? "light\(lightID)"
      guard !members.contains(where: { $0.name == memberName }) else {
        throw PluginError.config("\(path).lights: '\(memberName)' names two members (list each light once)")
      }
      members.append(HueConfig.Member(lightID: lightID, name: memberName))
    }
  }

  /// A bridge id as the config may write it: a string of digits ("1") or a whole number (1).
  struct BridgeID: Decodable {
    var text: String

    init(from decoder: Decoder) throws {
      let value = try decoder.singleValueContainer().decode(JSONValue.self)
      if let integer = value.integerValue, integer >= 0 {
        text = String(integer)
        return
      }
      guard let text = value.stringValue, !text.isEmpty, text.count <= 8, text.allSatisfy(\.isASCII),
        text.allSatisfy(\.isNumber)
      else {
        // An entry of `lights` has an index as its last key; `id` names a group.
        let what = decoder.codingPath.last?.intValue == nil ? "a bridge group id" : "a light id"
        throw PluginError.config(
          "\(decoder.keyPath) must be \(what) like \"1\" (digits), not \(value.text)")
      }
      self.text = text
    }
  }
}
