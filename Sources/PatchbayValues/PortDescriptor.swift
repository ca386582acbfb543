/// Raw values match `PB_PORT_INPUT` and `PB_PORT_OUTPUT`.
public enum PortDirection: UInt32, Sendable, Codable {
  case input = 1
  case output = 2

  public var name: String { self == .input ? "input" : "output" }
}

/// Raw values match `PB_PORT_EVENT` and `PB_PORT_STATE`.
public enum PortKind: UInt32, Sendable, Codable {
  /// Every value matters, in order, through a bounded queue.
  case event = 1
  /// Only the latest value matters; the hub retains it.
  case state = 2

  public var name: String { self == .event ? "event" : "state" }
}

/// A port as a plugin declared it at creation.
public struct PortDescriptor: Sendable, Hashable, Codable {
  public var name: String
  public var direction: PortDirection
  public var kind: PortKind
  public var type: ValueType
  public var description: String
  /// ABI 1.2 (`PB_PORT_MIRRORS_INPUT`): this output reports the device's own state of the input
  /// with this name, whose retained value follows what is published here.
  public var mirrors: String?
  /// ABI 1.2: what `patchbay status` shows of this output.
  public var statusRole: PortStatusRole?

  public init(
    name: String, direction: PortDirection, kind: PortKind, type: ValueType, description: String = "",
    mirrors: String? = nil, statusRole: PortStatusRole? = nil
  ) {
    self.name = name
    self.direction = direction
    self.kind = kind
    self.type = type
    self.description = description
    self.mirrors = mirrors
    self.statusRole = statusRole
  }

  /// Whether `name` is a valid port name: 1 to 64 of [a-z0-9_.].
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 64
      && name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 || $0 == 46 }
  }
}
