/// One characteristic of the accessory database: accessory id and instance id.
public struct HAPCharacteristicID: Hashable, Sendable, Codable, CustomStringConvertible {
  public var aid: Int
  public var iid: Int
  public init(aid: Int, iid: Int) {
    self.aid = aid
    self.iid = iid
  }
  /// "aid.iid", as in `GET /characteristics?id=1.10`.
  public var description: String { "\(aid).\(iid)" }
}
