/// The button's identity and key exchange half (FullVerifyResponse1, 117 bytes with the opcode).
public struct FullVerifyResponse1: Sendable, Equatable {
  public var tmpID: UInt32
  public var signature: [UInt8]
  public var address: [UInt8]
  public var addressType: UInt8
  public var publicKey: [UInt8]
  public var buttonRandom: [UInt8]
  /// Bit 0 link encrypted, bit 1 in public (pairable) mode, bit 2 has bond info.
  public var flags: UInt8

  public init(
    tmpID: UInt32, signature: [UInt8], address: [UInt8], addressType: UInt8, publicKey: [UInt8],
    buttonRandom: [UInt8], flags: UInt8
  ) {
    self.tmpID = tmpID
    self.signature = signature
    self.address = address
    self.addressType = addressType
    self.publicKey = publicKey
    self.buttonRandom = buttonRandom
    self.flags = flags
  }

  public var isInPublicMode: Bool { flags & 0x02 != 0 }
  /// The 39 bytes the factory signed.
  public var signedMessage: [UInt8] {
    FactorySignature.message(address: address, addressType: addressType, publicKey: publicKey)
  }
}

/// The central's key exchange half and its proof (FullVerifyRequest2 without app token).
public struct FullVerifyRequest2: Sendable, Equatable {
  public var publicKey: [UInt8]
  public var clientRandom: [UInt8]
  /// Signature variant (bits 0-2, sent as 0), encryption variant (3-5), must-validate-app-token (6),
  /// supports Duo (7). The same byte ends the hashed input of the full verify secret.
  public var flags: UInt8
  public var verifier: [UInt8]

  public init(publicKey: [UInt8], clientRandom: [UInt8], flags: UInt8, verifier: [UInt8]) {
    self.publicKey = publicKey
    self.clientRandom = clientRandom
    self.flags = flags
    self.verifier = verifier
  }
}

/// The button's answer once the verifier matched (FullVerifyResponse2, MAC'd with the new session key).
public struct FullVerifyResponse2: Sendable, Equatable {
  /// Bit 0 app credentials match, bit 1 cares about app credentials, bit 2 is a Duo.
  public var flags: UInt8
  public var buttonUUID: [UInt8]
  public var name: String
  public var firmwareVersion: UInt32
  /// The raw battery reading (0...1024 of 3.6 V); see `BatteryLevel`.
  public var batteryLevel: UInt16
  public var serialNumber: String

  public init(
    flags: UInt8, buttonUUID: [UInt8], name: String, firmwareVersion: UInt32, batteryLevel: UInt16,
    serialNumber: String
  ) {
    self.flags = flags
    self.buttonUUID = buttonUUID
    self.name = name
    self.firmwareVersion = firmwareVersion
    self.batteryLevel = batteryLevel
    self.serialNumber = serialNumber
  }

  public var isDuo: Bool { flags & 0x04 != 0 }
}

/// A reconnect with a stored pairing (QuickVerifyRequest, 17 bytes).
public struct QuickVerifyRequest: Sendable, Equatable {
  public var clientRandom: [UInt8]
  /// Signature and encryption variants (bits 0-5, sent as 0); pyflic-ble sets bit 6 (supports Duo).
  /// The byte enters the session key derivation.
  public var flags: UInt8
  public var tmpID: UInt32
  public var pairingID: UInt32

  public init(clientRandom: [UInt8], flags: UInt8, tmpID: UInt32, pairingID: UInt32) {
    self.clientRandom = clientRandom
    self.flags = flags
    self.tmpID = tmpID
    self.pairingID = pairingID
  }
}

/// The button's half of quick verify (QuickVerifyResponse, MAC'd with the derived session key).
public struct QuickVerifyResponse: Sendable, Equatable {
  public var buttonRandom: [UInt8]
  public var tmpID: UInt32
  public var flags: UInt8

  public init(buttonRandom: [UInt8], tmpID: UInt32, flags: UInt8) {
    self.buttonRandom = buttonRandom
    self.tmpID = tmpID
    self.flags = flags
  }
}
