extension MQTTConfig {
  /// What this config sets by hand that would be the same on another hub: the defaults carry
  /// the hub id (HubIdentity), an explicit `client_id` or `base_topic` does not. `patchbay
  /// check` shows these as warnings (the plugin logs them while it is created).
  public var sharedIdentityWarnings: [String] {
    var warnings: [String] = []
    if let id = broker.clientID {
      warnings.append(
        "client_id '\(id)' is used as written: a second hub connecting with the same id makes the broker "
          + "drop this one; leave client_id out (the default carries this hub's id) or make it unique per hub")
    }
    if let base = broker.baseTopic {
      warnings.append(
        "base_topic '\(base)' is used as written: a second hub with the same base_topic would share its "
          + "status topic, last will and Home Assistant topics (its last will would mark this hub offline); "
          + "leave base_topic out (the default patchbay/HUBID/INSTANCE carries this hub's id) or make it unique per hub"
      )
    }
    return warnings
  }
}
