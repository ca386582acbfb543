import CSystemdBus

/// A D-Bus value as read from a message: what BlueZ's properties and signals carry.
public indirect enum DBusValue: Sendable, Equatable {
  case string(String)
  case objectPath(String)
  case bool(Bool)
  case integer(Int64)
  case unsigned(UInt64)
  case double(Double)
  case bytes([UInt8])
  case array([DBusValue])
  case dictionary([String: DBusValue])
  case structure([DBusValue])
  case variant(DBusValue)

  /// The value inside any number of variants.
  public var unwrapped: DBusValue {
    if case .variant(let inner) = self { return inner.unwrapped }
    return self
  }

  public var string: String? {
    switch unwrapped {
    case .string(let text), .objectPath(let text): text
    default: nil
    }
  }

  public var bool: Bool? {
    if case .bool(let value) = unwrapped { return value }
    return nil
  }

  public var int: Int? {
    switch unwrapped {
    case .integer(let value): Int(exactly: value)
    case .unsigned(let value): Int(exactly: value)
    default: nil
    }
  }

  public var bytes: [UInt8]? {
    switch unwrapped {
    case .bytes(let value): value
    case .array(let items) where items.isEmpty: []
    default: nil
    }
  }

  public var strings: [String]? {
    guard case .array(let items) = unwrapped else { return nil }
    return items.compactMap(\.string)
  }

  public var dictionary: [String: DBusValue]? {
    switch unwrapped {
    case .dictionary(let table): table
    case .array(let items) where items.isEmpty: [:]
    default: nil
    }
  }
}

/// Reads values from an sd-bus message at its read position (a malformed message gives an error, never a trap).
struct DBusReader {
  let message: OpaquePointer

  struct Malformed: Error {}

  /// Reads every value left in the current container.
  func readAll() throws -> [DBusValue] {
    var values: [DBusValue] = []
    while sd_bus_message_at_end(message, 0) == 0 { values.append(try read()) }
    return values
  }

  func read() throws -> DBusValue {
    var type: CChar = 0
    var contents: UnsafePointer<CChar>? = nil
    guard sd_bus_message_peek_type(message, &type, &contents) > 0 else { throw Malformed() }
    let inner = contents.map { String(cString: $0) } ?? ""
    switch UInt8(bitPattern: type) {
    case UInt8(ascii: "a"):
      if inner == "y" {
        var pointer: UnsafeRawPointer? = nil
        var size = 0
        guard sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &pointer, &size) >= 0 else {
          throw Malformed()
        }
        guard let pointer, size > 0 else { return .bytes([]) }
        return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
      }
      try enter(type, inner)
      defer { sd_bus_message_exit_container(message) }
      if inner.hasPrefix("{") {
        var table: [String: DBusValue] = [:]
        while sd_bus_message_at_end(message, 0) == 0 {
          guard case .structure(let pair) = try readEntry(), pair.count == 2, let key = pair[0].string else {
            continue
          }
          table[key] = pair[1]
        }
        return .dictionary(table)
      }
      return .array(try readAll())
    case UInt8(ascii: "v"):
      try enter(type, inner)
      defer { sd_bus_message_exit_container(message) }
      return .variant(try read())
    case UInt8(ascii: "r"), UInt8(ascii: "e"):
      try enter(type, inner)
      defer { sd_bus_message_exit_container(message) }
      return .structure(try readAll())
    default:
      return try readBasic(type)
    }
  }

  private func readEntry() throws -> DBusValue {
    var type: CChar = 0
    var contents: UnsafePointer<CChar>? = nil
    guard sd_bus_message_peek_type(message, &type, &contents) > 0 else { throw Malformed() }
    try enter(type, contents.map { String(cString: $0) } ?? "")
    defer { sd_bus_message_exit_container(message) }
    return .structure(try readAll())
  }

  private func enter(_ type: CChar, _ contents: String) throws {
    guard sd_bus_message_enter_container(message, type, contents) > 0 else { throw Malformed() }
  }

  private func readBasic(_ type: CChar) throws -> DBusValue {
    var storage = (UInt64(0), UInt64(0))
    let result = withUnsafeMutableBytes(of: &storage) { sd_bus_message_read_basic(message, type, $0.baseAddress) }
    guard result > 0 else { throw Malformed() }
    return withUnsafeBytes(of: &storage) { raw -> DBusValue in
      switch UInt8(bitPattern: type) {
      case UInt8(ascii: "s"), UInt8(ascii: "g"):
        return .string(String(cString: raw.load(as: UnsafePointer<CChar>.self)))
      case UInt8(ascii: "o"): return .objectPath(String(cString: raw.load(as: UnsafePointer<CChar>.self)))
      case UInt8(ascii: "b"): return .bool(raw.load(as: Int32.self) != 0)
      case UInt8(ascii: "y"): return .unsigned(UInt64(raw.load(as: UInt8.self)))
      case UInt8(ascii: "n"): return .integer(Int64(raw.load(as: Int16.self)))
      case UInt8(ascii: "q"): return .unsigned(UInt64(raw.load(as: UInt16.self)))
      case UInt8(ascii: "i"), UInt8(ascii: "h"): return .integer(Int64(raw.load(as: Int32.self)))
      case UInt8(ascii: "u"): return .unsigned(UInt64(raw.load(as: UInt32.self)))
      case UInt8(ascii: "x"): return .integer(raw.load(as: Int64.self))
      case UInt8(ascii: "t"): return .unsigned(raw.load(as: UInt64.self))
      case UInt8(ascii: "d"): return .double(raw.load(as: Double.self))
      default: return .unsigned(0)
      }
    }
  }
}
