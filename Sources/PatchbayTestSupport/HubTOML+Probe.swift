extension HubTOML {
  /// A port as configs list them (`{ name = "level", type = "integer", kind = "state" }`): the
  /// example-swift probe's ports, the mqtt plugin's shared ports.
  public struct Port: Sendable {
    public var name: String
    public var type: String
    /// "event" or "state"; nil leaves it out (the plugin's default, "state").
    public var kind: String?

    public init(_ name: String, _ type: String, kind: String?) {
      self.name = name
      self.type = type
      self.kind = kind
    }

    /// An event port: every value counts, the same one again too.
    public static func event(_ name: String, _ type: String) -> Port { Port(name, type, kind: "event") }

    /// A state port: the latest value counts.
    public static func state(_ name: String, _ type: String) -> Port { Port(name, type, kind: "state") }

    /// The port as an inline table.
    public var value: Value {
      var pairs: [(String, Value)] = [("name", .string(name)), ("type", .string(type))]
      if let kind { pairs.append(("kind", .string(kind))) }
      return .inlineTable(pairs)
    }
  }

  /// The example-swift plugin as a test's probe, `[instances.NAME]`: it declares `ports` as
  /// inputs, republishes each value on `PORT.out` and appends it to `record` (when given) as a
  /// JSON line (`{"port":"level","value":42}`, read with `HubUnderTest.lines`); then `pairs`.
  public func probe(
    _ name: String = "probe", record: String? = nil, ports: [Port], _ pairs: KeyValuePairs<String, Value> = [:]
  ) -> HubTOML {
    table(
      "instances.\(name)",
      [("plugin", "example-swift")] + (record.map { [("record", .string($0))] } ?? []) + [("ports", .ports(ports))]
        + pairs.map { ($0.key, $0.value) })
  }
}

extension HubTOML.Value {
  /// A `ports = [...]` list.
  public static func ports(_ ports: [HubTOML.Port]) -> HubTOML.Value { .array(ports.map(\.value)) }
}
