/// The item types of pairing messages.
public enum TLV8Tag: UInt8, Sendable {
  case method = 0x00, identifier = 0x01, salt = 0x02, publicKey = 0x03, proof = 0x04
  case encryptedData = 0x05, state = 0x06, error = 0x07, retryDelay = 0x08, certificate = 0x09
  case signature = 0x0A, permissions = 0x0B, fragmentData = 0x0C, fragmentLast = 0x0D
  case flags = 0x13, separator = 0xFF
}

/// TLV `method` values.
public enum HAPPairingMethod: UInt8, Sendable {
  case pairSetup = 0, pairSetupWithAuth = 1, pairVerify = 2, addPairing = 3, removePairing = 4, listPairings = 5
}

/// TLV `error` values.
public enum HAPPairingError: UInt8, Sendable, Error {
  case unknown = 1, authentication = 2, backoff = 3, maxPeers = 4, maxTries = 5, unavailable = 6, busy = 7
}
