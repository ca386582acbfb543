/// The one byte that starts every Flic 2 / Duo GATT write and notification (the Twist has none):
/// the logical connection id in bits 0-4, "newly assigned" in bit 5 (the button just gave this id),
/// and in bit 7 "more fragments follow".
public struct FrameHeader: Sendable, Equatable {
  public var connectionID: UInt8
  public var newlyAssigned: Bool
  public var moreFragments: Bool

  public init(connectionID: UInt8, newlyAssigned: Bool = false, moreFragments: Bool = false) {
    self.connectionID = connectionID & 0x1F
    self.newlyAssigned = newlyAssigned
    self.moreFragments = moreFragments
  }

  public init(byte: UInt8) {
    self.init(connectionID: byte & 0x1F, newlyAssigned: byte & 0x20 != 0, moreFragments: byte & 0x80 != 0)
  }

  public var byte: UInt8 { connectionID | (newlyAssigned ? 0x20 : 0) | (moreFragments ? 0x80 : 0) }
}
