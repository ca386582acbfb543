/// InitButtonEventsRequest: what the central has already seen (event count and boot id) and how
/// the button should queue presses while disconnected.
public struct InitButtonEventsRequest: Sendable, Equatable {
  public var eventCount: UInt32
  public var bootID: UInt32
  /// Seconds without a press before the button disconnects (9 bits; 511 = never).
  public var autoDisconnectTime: UInt16
  /// Queued packets the button may send after reconnect (5 bits; 0 = none).
  public var maxQueuedPackets: UInt8
  /// The oldest queued press worth sending, in seconds (20 bits; 0xFFFFF = any age).
  public var maxQueuedPacketsAge: UInt32
  public var enableHID: Bool

  public init(
    eventCount: UInt32, bootID: UInt32, autoDisconnectTime: UInt16 = 511, maxQueuedPackets: UInt8 = 31,
    maxQueuedPacketsAge: UInt32 = 0xFFFFF, enableHID: Bool = false
  ) {
    self.eventCount = eventCount
    self.bootID = bootID
    self.autoDisconnectTime = Swift.min(autoDisconnectTime, 511)
    self.maxQueuedPackets = Swift.min(maxQueuedPackets, 31)
    self.maxQueuedPacketsAge = Swift.min(maxQueuedPacketsAge, 0xFFFFF)
    self.enableHID = enableHID
  }

  /// The 40-bit field after boot id: 9 + 5 + 20 bits, HID bit, 5 reserved.
  var packedLimits: UInt64 {
    UInt64(autoDisconnectTime) | UInt64(maxQueuedPackets) << 9 | UInt64(maxQueuedPacketsAge) << 14
      | (enableHID ? 1 << 34 : 0)
  }

  init(eventCount: UInt32, bootID: UInt32, packedLimits: UInt64) {
    self.init(
      eventCount: eventCount, bootID: bootID, autoDisconnectTime: UInt16(packedLimits & 0x1FF),
      maxQueuedPackets: UInt8((packedLimits >> 9) & 0x1F), maxQueuedPacketsAge: UInt32((packedLimits >> 14) & 0xFFFFF),
      enableHID: (packedLimits >> 34) & 1 != 0)
  }
}

/// The answer to InitButtonEventsRequest. `bootID` is present only when it differs from the one
/// the central sent (the button rebooted or the central is new): then the central's count is void.
public struct InitButtonEventsResponse: Sendable, Equatable {
  public var hasQueuedEvents: Bool
  /// The button's clock now, in 1/32768 s (47 bits); queued presses are aged against it.
  public var timestamp: UInt64
  public var eventCount: UInt32
  public var bootID: UInt32?

  public init(hasQueuedEvents: Bool, timestamp: UInt64, eventCount: UInt32, bootID: UInt32?) {
    self.hasQueuedEvents = hasQueuedEvents
    self.timestamp = timestamp & 0x7FFF_FFFF_FFFF
    self.eventCount = eventCount
    self.bootID = bootID
  }
}

/// One 7-byte item of a ButtonEventNotification.
public struct ButtonEventItem: Sendable, Equatable {
  /// Button clock in 1/32768 s (48 bits).
  public var timestamp: UInt64
  public var code: ButtonEventCode
  /// Pressed while no central was connected and sent after reconnect.
  public var wasQueued: Bool
  /// The last of the queued items: live presses follow.
  public var wasQueuedLast: Bool

  public init(timestamp: UInt64, code: ButtonEventCode, wasQueued: Bool = false, wasQueuedLast: Bool = false) {
    self.timestamp = timestamp & 0xFFFF_FFFF_FFFF
    self.code = code
    self.wasQueued = wasQueued
    self.wasQueuedLast = wasQueuedLast
  }
}

/// ButtonEventNotification: the event count of the last item and the items in order.
public struct ButtonEventNotification: Sendable, Equatable {
  public var pressCounter: UInt32
  public var items: [ButtonEventItem]

  public init(pressCounter: UInt32, items: [ButtonEventItem]) {
    self.pressCounter = pressCounter
    self.items = items
  }

  /// The event count of each item. The counter moves through down (count mod 4 = 1), hold (2),
  /// up (3) and single-click timeout (0), skipping the ones that did not happen, so earlier counts
  /// follow from the last one by walking back over the item kinds.
  public var itemEventCounts: [UInt32] {
    guard !items.isEmpty else { return [] }
    var counts = [UInt32](repeating: pressCounter, count: items.count)
    var count = pressCounter
    for index in stride(from: items.count - 2, through: 0, by: -1) {
      let kind = items[index].code.counterKind
      switch count % 4 {
      case 0, 2: count &-= 1
      case 1: count &-= kind == .singleClickTimeout ? 1 : 2
      default: count &-= kind == .hold ? 1 : 2
      }
      counts[index] = count
    }
    return counts
  }
}

/// The 4-bit event code. Codes 8-15 are a release (bit 2: after a hold, bit 1: a click was decided,
/// bit 0: a double click); below 8 the low two bits say up (0), down (1), single-click timeout (2)
/// or hold (3), and 7 is a hold whose release will be a double click.
public struct ButtonEventCode: Sendable, Equatable, Hashable {
  public let rawValue: UInt8

  public init?(rawValue: UInt8) {
    guard rawValue < 16 else { return nil }
    self.rawValue = rawValue
  }

  public static let down = ButtonEventCode(rawValue: 1)!
  public static let singleClickTimeout = ButtonEventCode(rawValue: 2)!
  public static let hold = ButtonEventCode(rawValue: 3)!
  /// A release while a double click is still possible.
  public static let upClickPending = ButtonEventCode(rawValue: 8)!
  public static let upSingleClick = ButtonEventCode(rawValue: 10)!
  public static let upDoubleClick = ButtonEventCode(rawValue: 11)!
  /// A release after a hold (counts as a single click for single-or-double classification).
  public static let upAfterHold = ButtonEventCode(rawValue: 14)!

  public var isUp: Bool { rawValue >= 8 || rawValue & 3 == 0 }

  enum CounterKind { case up, down, singleClickTimeout, hold }

  var counterKind: CounterKind {
    if rawValue >= 8 { return .up }
    switch rawValue & 3 {
    case 0: return .up
    case 1: return .down
    case 2: return .singleClickTimeout
    default: return .hold
    }
  }

  /// What a person did, as the hub's button type names it; nil for a code that only marks a step.
  public var actions: [ButtonAction] {
    switch counterKind {
    case .down: return [.down]
    case .singleClickTimeout: return [.click]
    case .hold: return [.hold]
    case .up:
      guard rawValue >= 8 else { return [.up] }
      let afterHold = rawValue & 4 != 0
      let decided = rawValue & 2 != 0
      let double = rawValue & 1 != 0
      if decided && double { return [.up, .doubleClick] }
      if decided && !afterHold { return [.up, .click] }
      return [.up]
    }
  }
}

/// The button actions a central reports.
public enum ButtonAction: String, Sendable, Equatable {
  case down, up, click, doubleClick, hold
}
