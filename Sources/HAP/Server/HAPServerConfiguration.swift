/// Everything one accessory server needs to start.
public struct HAPServerConfiguration: Sendable {
  public var identity: HAPAccessoryIdentity
  public var setupCode: HAPSetupCode
  public var pairingState: HAPPairingState
  /// Listen address ("0.0.0.0" or "::"; tests use "127.0.0.1").
  public var host: String
  /// 0: any free port; `start()` returns the bound one.
  public var port: Int
  /// More connections are refused (closed at once), logged once.
  public var maxConnections: Int

  public init(
    identity: HAPAccessoryIdentity, setupCode: HAPSetupCode, pairingState: HAPPairingState = HAPPairingState(),
    host: String = "::", port: Int = 0, maxConnections: Int = 32
  ) {
    self.identity = identity
    self.setupCode = setupCode
    self.pairingState = pairingState
    self.host = host
    self.port = port
    self.maxConnections = maxConnections
  }
}
