extension HubTOML {
  /// One `[[instances.INSTANCE.accessories]]` with its name and service, then `pairs`: the
  /// accessory list of the homekit bridge and of homebridge-websocket, which spell it alike.
  public func accessory(
    of instance: String = "homekit", _ name: String, service: String, _ pairs: KeyValuePairs<String, Value> = [:]
  ) -> HubTOML {
    arrayTable(
      "instances.\(instance).accessories",
      [("name", .string(name)), ("service", .string(service))] + pairs.map { ($0.key, $0.value) })
  }
}
