/// What the accessory must remember about its controllers: persisted by the plugin, owned by
/// the server while it runs.
public struct HAPPairingState: Hashable, Sendable, Codable {
  /// Empty: unpaired (TXT `sf=1`).
  public var pairings: [HAPPairing]
  /// At 100 or more, pair-setup answers max tries until the state is reset.
  public var failedSetupAttempts: Int
  public init(pairings: [HAPPairing] = [], failedSetupAttempts: Int = 0) {
    self.pairings = pairings
    self.failedSetupAttempts = failedSetupAttempts
  }
  public var isPaired: Bool { !pairings.isEmpty }

  /// The spec's limits.
  public static let maximumPairings = 16
  public static let maximumFailedSetupAttempts = 100
}
