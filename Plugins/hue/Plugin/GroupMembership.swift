import HueProtocol

/// Which lights an exposed group holds and which bridge group can command them all at once,
/// by the config and what was read from the bridge.
struct GroupMembership {
  let group: HueConfig.Group
  let model: BridgeModel

  /// The light ids; nil while unknown (the bridge was not read, or has no such group).
  var members: [String]? {
    if !group.members.isEmpty { return group.members.map(\.lightID) }
    switch group.source {
    case .bridgeGroup(let id): return model.members(ofBridgeGroup: id)
    case .bridgeGroupNamed: return configuredBridgeGroup.flatMap(model.members(ofBridgeGroup:))
    case .lights: return nil
    }
  }

  /// The bridge group the config names (by id, or by name once the bridge was read).
  var configuredBridgeGroup: String? {
    switch group.source {
    case .bridgeGroup(let id): id
    case .bridgeGroupNamed(let name): model.groups.filter { $0.value.name == name }.keys.min(by: BridgeModel.idOrder)
    case .lights: nil
    }
  }

  /// The bridge group to send a whole-group command to: the configured one when its members
  /// are `members`, else any bridge group with exactly these members; nil means per light.
  func bridgeGroup(members: [String]) -> String? {
    if let configured = configuredBridgeGroup, let actual = model.members(ofBridgeGroup: configured),
      Set(actual) == Set(members)
    {
      return configured
    }
    return model.bridgeGroup(withMembers: Set(members))
  }

  /// The configured bridge group when its members differ from `members` (worth a warning).
  func mismatchedBridgeGroup(members: [String]) -> String? {
    guard let configured = configuredBridgeGroup, let actual = model.members(ofBridgeGroup: configured),
      Set(actual) != Set(members)
    else { return nil }
    return configured
  }

  /// The port name of a member: from the config, else `light<ID>`.
  func name(of lightID: String) -> String {
    group.members.first { $0.lightID == lightID }?.name ?? "light\(lightID)"
  }
}
