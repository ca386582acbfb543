import PatchbayValues

/// One characteristic's value in an accessory's EVENT.
public struct HAPCharacteristicValue: Hashable, Sendable {
  public var id: HAPCharacteristicID
  public var value: JSONValue
  public init(id: HAPCharacteristicID, value: JSONValue) {
    self.id = id
    self.value = value
  }

  /// The items of an EVENT's `{"characteristics":[{"aid","iid","value"}]}` body; items
  /// without aid, iid or value are left out (public for the fuzzer).
  public static func fromEvent(_ body: [UInt8]) -> [HAPCharacteristicValue] {
    guard let json = JSONValue.parse(String(decoding: body, as: UTF8.self)),
      let items = json["characteristics"]?.arrayValue
    else { return [] }
    return items.compactMap { item in
      guard let aid = item["aid"]?.integerValue, let iid = item["iid"]?.integerValue, let value = item["value"] else {
        return nil
      }
      return HAPCharacteristicValue(id: HAPCharacteristicID(aid: aid, iid: iid), value: value)
    }
  }
}
