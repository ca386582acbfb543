/// What a central session reports to the plugin.
public enum CentralEvent: Sendable, Equatable {
  /// Full verify succeeded: store this (it carries the pairing key).
  case paired(StoredButton)
  /// Quick verify succeeded with the stored pairing.
  case verified
  /// The button answered InitButtonEventsRequest; queued presses follow when `hasQueuedEvents`.
  case eventsStarted(bootIDChanged: Bool, hasQueuedEvents: Bool)
  case button(ButtonPress)
  /// A Flic Duo: a swipe across one of its buttons.
  case swipe(DuoSwipe)
  /// Every press queued while disconnected has been delivered; what follows is live.
  case queuedEventsDelivered
  /// The delivery cursor moved: persist it.
  case cursor(EventCursor)
  case battery(millivolts: UInt16)
  case name(String, timestampUTCMilliseconds: UInt64)
  case firmwareVersion(UInt32)
  /// The button refused the stored pairing, and confirmed it through TestIfReallyUnpaired: its
  /// owner reset it. Pair anew.
  case pairingGone
  /// The button ended the verified link (reason as `DisconnectReason` raw value).
  case linkEnded(reason: UInt8)
  case failed(CentralFailure)
  /// A Flic Twist's dial in `mode` (slots 0-11, 12 while pushed) is at `units` of 0...49152.
  case twistPosition(mode: UInt8, units: Int32)
  /// A Flic Twist's active slot (0...11) changed.
  case twistSlot(Int)
}

/// One thing a person did with the button, in delivery order.
public struct ButtonPress: Sendable, Equatable {
  public var action: ButtonAction
  public var eventCount: UInt32
  public var wasQueued: Bool
  /// How long ago it happened by the button's clock (0 for a live press).
  public var ageSeconds: Double
  /// 0 for a Flic 2 and a Duo's big button, 1 for a Duo's small one.
  public var buttonIndex: Int

  public init(action: ButtonAction, eventCount: UInt32, wasQueued: Bool, ageSeconds: Double, buttonIndex: Int = 0) {
    self.action = action
    self.eventCount = eventCount
    self.wasQueued = wasQueued
    self.ageSeconds = ageSeconds
    self.buttonIndex = buttonIndex
  }
}

/// A swipe across a Flic Duo's button (0 big, 1 small).
public struct DuoSwipe: Sendable, Equatable {
  public var direction: DuoButtonEvent.Gesture
  public var buttonIndex: Int
  public var eventCount: UInt32
  public var wasQueued: Bool
  public var ageSeconds: Double

  public init(
    direction: DuoButtonEvent.Gesture, buttonIndex: Int, eventCount: UInt32, wasQueued: Bool, ageSeconds: Double
  ) {
    self.direction = direction
    self.buttonIndex = buttonIndex
    self.eventCount = eventCount
    self.wasQueued = wasQueued
    self.ageSeconds = ageSeconds
  }
}

extension DuoButtonEvent.Gesture {
  /// The value a swipe port carries.
  public var name: String {
    switch self {
    case .left: "left"
    case .right: "right"
    case .up: "up"
    case .down: "down"
    }
  }
}

extension DuoButtonEvent.Kind {
  /// What a person did, in the hub's button actions (as pyflic-ble maps the Duo's kinds): a click
  /// is decided by the single-click timeout or an up that says so, a double click by its up.
  public var actions: [ButtonAction] {
    switch self {
    case .down: [.down]
    case .up, .upAfterHold: [.up]
    case .upSingleClick: [.up, .click]
    case .upDoubleClick, .upWithFlag: [.up, .doubleClick]
    case .singleClickTimeout: [.click]
    case .hold: [.hold]
    }
  }
}

/// Why a central session ended without a usable link.
public enum CentralFailure: Error, Sendable, Equatable {
  /// The factory signature did not verify under any trusted key and variant.
  case notGenuine
  /// The signed address is not the address the central connected to.
  case unexpectedAddress
  case invalidVerifier
  case notInPublicMode
  case fullVerifyFailed(reason: UInt8)
  /// A packet's MAC did not match (tampering, a lost packet, or a wrong key).
  case badMAC
  case noConnectionSlots
  /// A quick verify refusal that the genuine button contradicts: it still has the pairing (the
  /// refusal was forged over the air). Keep the pairing and retry.
  case refusalNotConfirmed
  case malformed(FlicBLEError)
  /// The button's X25519 key gave no shared secret (a low-order point).
  case keyAgreementFailed
}
