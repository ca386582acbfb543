import PatchbayValues

/// What a shared port's value looks like on the broker: a small typed JSON object,
/// `{"type":"button","kind":"event","value":"click","time":1700000000123,"epoch":1700000000000,"seq":42}`.
/// `epoch` (the sender's start, ms) and `seq` (per port, from 1) let the importer drop the
/// duplicates QoS 1 brings; `time` is when the value was published (ms since 1970).
public struct ShareEnvelope: Sendable, Equatable {
  public var type: ValueType
  public var kind: PortKind
  public var value: Value
  public var time: Int64
  public var epoch: Int64
  public var seq: Int64

  public init(value: Value, kind: PortKind, time: Int64, epoch: Int64, seq: Int64) {
    self.type = value.type
    self.kind = kind
    self.value = value
    self.time = time
    self.epoch = epoch
    self.seq = seq
  }

  public var json: JSONValue {
    .object([
      ("type", .string(type.name)), ("kind", .string(kind.name)), ("value", value.json), ("time", .integer(time)),
      ("epoch", .integer(epoch)), ("seq", .integer(seq)),
    ])
  }

  /// Reads an envelope, checking it carries `expected` values.
  public init(payload: [UInt8], expected: ValueType) throws(PayloadError) {
    guard let json = JSONValue.parse(String(decoding: payload, as: UTF8.self)), case .object = json else {
      throw PayloadError("not a patchbay envelope (a JSON object)")
    }
    guard case .string(let typeName)? = json["type"], let type = ValueType(name: typeName) else {
      throw PayloadError("envelope without a known type")
    }
    guard type == expected else {
      throw PayloadError("envelope carries \(typeName), the import expects \(expected.name)")
    }
    guard case .integer(let seq)? = json["seq"], case .integer(let epoch)? = json["epoch"], let raw = json["value"]
    else {
      throw PayloadError("envelope without seq, epoch or value")
    }
    let value: Value
    do {
      value = try Value.fromJSON(raw, as: type)
    } catch {
      throw PayloadError(error.description)
    }
    let kind: PortKind = json["kind"] == .string("event") ? .event : .state
    var time: Int64 = 0
    if case .integer(let stamp)? = json["time"] { time = stamp }
    self.init(value: value, kind: kind, time: time, epoch: epoch, seq: seq)
  }
}
