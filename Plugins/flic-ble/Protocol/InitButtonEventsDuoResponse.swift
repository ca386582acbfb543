/// The Duo's answer to InitButtonEventsDuoRequest (opcodes 30 and 31). pyflic-ble waits for these
/// opcodes without reading them, so the layout is patchbay's reading of the Flic 2 answer widened
/// to two buttons: 48 bits (queued flag, then the button's clock), the event count of the big and
/// of the small button, and the boot id when it differs from the central's.
public struct InitButtonEventsDuoResponse: Sendable, Equatable {
  public var hasQueuedEvents: Bool
  /// The button's clock now, in 1/32768 s (47 bits).
  public var timestamp: UInt64
  public var eventCounts: (UInt32, UInt32)
  public var bootID: UInt32?

  public init(hasQueuedEvents: Bool, timestamp: UInt64, eventCounts: (UInt32, UInt32), bootID: UInt32?) {
    self.hasQueuedEvents = hasQueuedEvents
    self.timestamp = timestamp & 0x7FFF_FFFF_FFFF
    self.eventCounts = eventCounts
    self.bootID = bootID
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.hasQueuedEvents == rhs.hasQueuedEvents && lhs.timestamp == rhs.timestamp
      && lhs.eventCounts == rhs.eventCounts && lhs.bootID == rhs.bootID
  }
}
