/// TLV8, HAP's pairing message format: `type | length | value` items; a value over 255 bytes
/// is split into consecutive items of its type, and two separate items of the same type in a
/// row are divided by a separator (0xFF, length 0).
public enum TLV8 {
  public struct Item: Hashable, Sendable {
    public var tag: UInt8
    public var value: [UInt8]
    public init(_ tag: UInt8, _ value: [UInt8]) {
      self.tag = tag
      self.value = value
    }
    public init(_ tag: TLV8Tag, _ value: [UInt8]) { self.init(tag.rawValue, value) }
  }

  public struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
  }

  /// Items in order, fragments joined; separators are kept as items of tag 0xFF so that lists
  /// (list pairings) can be split on them.
  public static func decode(_ bytes: [UInt8]) throws -> [Item] {
    var items: [Item] = []
    var index = 0
    var lastWasFragment = false
    while index < bytes.count {
      guard bytes.count - index >= 2 else { throw DecodingError(description: "TLV8 item header cut short") }
      let tag = bytes[index]
      let length = Int(bytes[index + 1])
      index += 2
      guard bytes.count - index >= length else {
        throw DecodingError(description: "TLV8 item of \(length) bytes cut short")
      }
      let value = Array(bytes[index..<index + length])
      index += length
      if lastWasFragment, let last = items.last, last.tag == tag {
        items[items.count - 1].value += value
      } else {
        items.append(Item(tag, value))
      }
      lastWasFragment = length == 255
    }
    return items
  }

  public static func encode(_ items: [Item]) -> [UInt8] {
    var out: [UInt8] = []
    var previousTag: UInt8?
    for item in items {
      if item.tag == previousTag, item.tag != TLV8Tag.separator.rawValue {
        out += [TLV8Tag.separator.rawValue, 0]
      }
      var rest = item.value[...]
      repeat {
        let chunk = rest.prefix(255)
        out += [item.tag, UInt8(chunk.count)] + chunk
        rest = rest.dropFirst(chunk.count)
      } while !rest.isEmpty
      previousTag = item.tag
    }
    return out
  }
}

extension Array where Element == TLV8.Item {
  /// The first item of `tag`.
  public subscript(tag: TLV8Tag) -> [UInt8]? { first { $0.tag == tag.rawValue }?.value }
  /// The first item of `tag` as one byte (state, method, error, permissions).
  public func byte(_ tag: TLV8Tag) -> UInt8? {
    guard let value = self[tag], value.count == 1 else { return nil }
    return value[0]
  }
}
