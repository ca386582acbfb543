// The one-byte enums of the flicd protocol; each counts up from 0.

public enum ConnectionStatus: UInt8, Sendable, CaseIterable {
  case disconnected, connected, ready
}

public enum DisconnectReason: UInt8, Sendable, CaseIterable {
  case unspecified, connectionEstablishmentFailed, timedOut, bondingKeysMismatch
}

public enum CreateConnectionChannelError: UInt8, Sendable, CaseIterable {
  case noError, maxPendingConnectionsReached
}

public enum RemovedReason: UInt8, Sendable, CaseIterable {
  case removedByThisClient, forceDisconnectedByThisClient, forceDisconnectedByOtherClient, buttonIsPrivate
  case verifyTimeout, internetBackendError, invalidData, couldntLoadDevice, deletedByThisClient
  case deletedByOtherClient, buttonBelongsToOtherPartner, deletedFromButton
}

public enum ClickType: UInt8, Sendable, CaseIterable {
  case buttonDown, buttonUp, buttonClick, buttonSingleClick, buttonDoubleClick, buttonHold
}

public enum BluetoothAddressType: UInt8, Sendable, CaseIterable {
  case `public`, random
}

/// How fast the radio link reports presses; flicd uses the lowest mode any channel asks for.
public enum LatencyMode: UInt8, Sendable, CaseIterable {
  /// Up to 100 ms.
  case normal
  /// Up to 17.5 ms, at the cost of battery.
  case low
  /// Up to 275 ms.
  case high
}

public enum BluetoothControllerState: UInt8, Sendable, CaseIterable {
  case detached, resetting, attached
}

public enum ScanWizardResult: UInt8, Sendable, CaseIterable {
  case success, cancelledByUser, failedTimeout, buttonIsPrivate, bluetoothUnavailable, internetBackendError
  case invalidData, buttonBelongsToOtherPartner, buttonAlreadyConnectedToOtherDevice
}
