/// What a central keeps about a paired button between connections (the plugin persists it):
/// the pairing, the button's identity, and how far its events have been delivered.
public struct StoredButton: Sendable, Equatable {
  public var pairing: Pairing
  public var address: [UInt8]
  public var buttonUUID: [UInt8]
  public var serialNumber: String
  public var name: String
  public var firmwareVersion: UInt32
  public var cursor: EventCursor

  public init(
    pairing: Pairing, address: [UInt8], buttonUUID: [UInt8], serialNumber: String, name: String,
    firmwareVersion: UInt32, cursor: EventCursor
  ) {
    self.pairing = pairing
    self.address = address
    self.buttonUUID = buttonUUID
    self.serialNumber = serialNumber
    self.name = name
    self.firmwareVersion = firmwareVersion
    self.cursor = cursor
  }
}

/// The last event the central has delivered, and the button boot it belongs to. Sent in
/// InitButtonEventsRequest so that the button resends only what is newer: persist it after every
/// delivered press, or a press is lost or delivered twice across a reconnect.
public struct EventCursor: Sendable, Equatable {
  public var eventCount: UInt32
  public var bootID: UInt32
  /// A Flic Duo's small button counts its events apart (0 for a Flic 2).
  public var smallEventCount: UInt32

  public init(eventCount: UInt32, bootID: UInt32, smallEventCount: UInt32 = 0) {
    self.eventCount = eventCount
    self.bootID = bootID
    self.smallEventCount = smallEventCount
  }

  public static let none = EventCursor(eventCount: 0, bootID: 0)
}
