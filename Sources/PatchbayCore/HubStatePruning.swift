extension Hub {
  /// Forgets retained values for ports the running config no longer names, once they have been
  /// unnamed for a week (`HubStateStore.unconfiguredGrace`): without it the state file grows with
  /// every instance or port that ever existed. An instance that is down keeps all its values
  /// (its ports are not known); scenes are named by the config as a whole. Runs after a start
  /// and after a reload.
  package func pruneRetainedValues() {
    var named: [String: Set<String>?] = [:]
    for (name, supervisor) in instances {
      named[name] = supervisor.hasBeenCreated ? Set(supervisor.declaredPorts.map(\.name)) : .some(nil)
    }
    if !config.scenes.isEmpty { named[SceneSpec.instanceName] = .some(nil) }
    let dropped = store.prune { address in
      guard let dot = address.firstIndex(of: "."), let ports = named[String(address[..<dot])] else { return false }
      guard let ports else { return true }
      return ports.contains(String(address[address.index(after: dot)...]))
    }
    if dropped > 0 {
      logger.notice(
        "forgot \(dropped) retained value\(dropped == 1 ? "" : "s") of ports that no config has named for 7 days")
    }
  }
}
