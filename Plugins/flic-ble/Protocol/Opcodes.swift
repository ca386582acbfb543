/// Flic 2 opcodes, central to button (Shortcut Labs' `OpcodeToFlic`; Duo's own from 35 on).
public enum ToButtonOpcode: UInt8, Sendable {
  case fullVerifyRequest1 = 0
  case fullVerifyRequest2WithAppToken = 1
  case fullVerifyRequest2 = 2
  case fullVerifyAbortInd = 3
  case testIfReallyUnpairedRequest = 4
  case quickVerifyRequest = 5
  case forceBtDisconnectInd = 6
  case getFirmwareVersionRequest = 8
  case disconnectVerifiedLinkInd = 9
  case setNameRequest = 10
  case getNameRequest = 11
  case setConnectionParametersInd = 12
  case pingResponse = 14
  case initButtonEventsRequest = 15
  case ackButtonEventsInd = 16
  case setAutoDisconnectTimeInd = 19
  case getBatteryLevelRequest = 20
  /// What current centrals send to start events (the "light" variant without HID): the same fields.
  case initButtonEventsLightRequest = 23
  case initButtonEventsDuoRequest = 35
  case enablePushTwistInd = 37
}

/// Flic 2 opcodes, button to central (`OpcodeFromFlic`; Duo's own from 30 on).
public enum FromButtonOpcode: UInt8, Sendable {
  case fullVerifyResponse1 = 0
  case fullVerifyResponse2 = 1
  case noLogicalConnectionSlotsInd = 2
  case fullVerifyFailResponse = 3
  case testIfReallyUnpairedResponse = 4
  case getFirmwareVersionResponse = 5
  case quickVerifyNegativeResponse = 6
  case pairingFinishedInd = 7
  case quickVerifyResponse = 8
  case disconnectedVerifiedLinkInd = 9
  case initButtonEventsResponseWithBootID = 10
  case initButtonEventsResponseWithoutBootID = 11
  case buttonEventNotification = 12
  case nameUpdatedNotification = 14
  case pingRequest = 15
  case getNameResponse = 16
  case setNameResponse = 17
  case getBatteryLevelResponse = 20
  case initButtonEventsDuoResponseWithBootID = 30
  case initButtonEventsDuoResponseWithoutBootID = 31
  case buttonEventDuoNotification = 32
  case pushTwistDataNotification = 33
}

/// The Flic Twist's own opcode table, central to button (as pyflic-ble implements it).
public enum TwistToButtonOpcode: UInt8, Sendable {
  case fullVerifyRequest1 = 0x00
  case fullVerifyRequest2 = 0x02
  case quickVerifyRequest = 0x05
  case forceBtDisconnectInd = 0x06
  case getFirmwareVersionRequest = 0x07
  case setNameRequest = 0x09
  case getNameRequest = 0x0A
  case initButtonEventsRequest = 0x0C
  case ackButtonEventsInd = 0x0D
  case updateTwistPositionRequest = 0x0E
  case getBatteryLevelRequest = 0x11
}

/// The Flic Twist's opcode table, button to central.
public enum TwistFromButtonOpcode: UInt8, Sendable {
  case fullVerifyResponse1 = 0x00
  case fullVerifyResponse2 = 0x01
  case fullVerifyFailResponse = 0x02
  case getFirmwareVersionResponse = 0x04
  case quickVerifyNegativeResponse = 0x05
  case quickVerifyResponse = 0x06
  case disconnectedVerifiedLinkInd = 0x07
  case initButtonEventsResponse = 0x08
  case buttonEventNotification = 0x09
  case twistEventNotification = 0x0A
  case getNameResponse = 0x0C
  case setNameResponse = 0x0D
  case getBatteryLevelResponse = 0x10
}

/// Why the button ended a verified link (DisconnectedVerifiedLinkInd).
public enum DisconnectReason: UInt8, Sendable {
  case pingTimeout = 0
  case invalidSignature = 1
  case startedNewWithSamePairingIdentifier = 2
  case byUser = 3
}

/// Why the button refused FullVerifyRequest2.
public enum FullVerifyFailReason: UInt8, Sendable {
  case invalidVerifier = 0
  case notInPublicMode = 1
}
