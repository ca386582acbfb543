import CSystemdBus

/// An argument of a method call, written into an sd-bus message: the few shapes BlueZ's calls take.
public enum DBusArgument: Sendable {
  case string(String)
  case objectPath(String)
  case bytes([UInt8])
  /// `a{sv}`: an options or filter dictionary.
  case options([String: DBusOption])

  /// A variant value of an options dictionary.
  public enum DBusOption: Sendable {
    case string(String)
    case strings([String])
    case uint16(UInt16)
    case bool(Bool)
  }

  func append(to message: OpaquePointer) -> Int32 {
    switch self {
    case .string(let text): return appendBasic(message, "s", text)
    case .objectPath(let path): return appendBasic(message, "o", path)
    case .bytes(let bytes):
      return bytes.withUnsafeBytes { sd_bus_message_append_array(message, Self.code("y"), $0.baseAddress, $0.count) }
    case .options(let table):
      var result = sd_bus_message_open_container(message, Self.code("a"), "{sv}")
      for (key, value) in table.sorted(by: { $0.key < $1.key }) where result >= 0 {
        result = sd_bus_message_open_container(message, Self.code("e"), "sv")
        if result >= 0 { result = appendBasic(message, "s", key) }
        if result >= 0 { result = value.append(to: message) }
        if result >= 0 { result = sd_bus_message_close_container(message) }
      }
      return result >= 0 ? sd_bus_message_close_container(message) : result
    }
  }

  static func code(_ character: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: character)) }
}

extension DBusArgument.DBusOption {
  func append(to message: OpaquePointer) -> Int32 {
    let signature: String
    switch self {
    case .string: signature = "s"
    case .strings: signature = "as"
    case .uint16: signature = "q"
    case .bool: signature = "b"
    }
    var result = sd_bus_message_open_container(message, DBusArgument.code("v"), signature)
    guard result >= 0 else { return result }
    switch self {
    case .string(let text): result = appendBasic(message, "s", text)
    case .strings(let items):
      result = sd_bus_message_open_container(message, DBusArgument.code("a"), "s")
      for item in items where result >= 0 { result = appendBasic(message, "s", item) }
      if result >= 0 { result = sd_bus_message_close_container(message) }
    case .uint16(var value): result = sd_bus_message_append_basic(message, DBusArgument.code("q"), &value)
    case .bool(let flag):
      var value: Int32 = flag ? 1 : 0
      result = sd_bus_message_append_basic(message, DBusArgument.code("b"), &value)
    }
    return result >= 0 ? sd_bus_message_close_container(message) : result
  }
}

/// Strings and object paths go in as the C string itself (sd-bus copies it).
func appendBasic(_ message: OpaquePointer, _ type: Unicode.Scalar, _ text: String) -> Int32 {
  text.withCString { sd_bus_message_append_basic(message, DBusArgument.code(type), $0) }
}
