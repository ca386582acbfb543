/// Flic Duo's button events (ButtonEventDuoNotification, opcode 32): a bit-packed stream, least
/// significant bit first, of variable-length events for two buttons, with counters and
/// timestamps as deltas from the previous event. The decoder keeps the running state across
/// notifications. Layout as in pyflic-ble (and Shortcut Labs' Kotlin SDK, which it follows).
public struct DuoEventDecoder: Sendable, Equatable {
  public private(set) var eventCounts: [UInt64] = [0, 0]
  /// Button clock of the last event (1/32768 s).
  public private(set) var lastTimestamp: UInt64 = 0
  public private(set) var hasSeenEndOfQueue = false

  public init() {}

  public init(eventCounts: [UInt64], lastTimestamp: UInt64, hasSeenEndOfQueue: Bool) {
    self.eventCounts = Array(eventCounts.prefix(2)) + [UInt64](repeating: 0, count: Swift.max(0, 2 - eventCounts.count))
    self.lastTimestamp = lastTimestamp
    self.hasSeenEndOfQueue = hasSeenEndOfQueue
  }

  /// The events of one notification's payload (after the opcode). An event cut off at the end
  /// is dropped with the state rolled back to before it; a packet with no whole event throws.
  public mutating func decode(_ payload: [UInt8]) throws(FlicBLEError) -> [DuoButtonEvent] {
    var reader = BitReader(payload)
    var events: [DuoButtonEvent] = []
    var countSeen = [false, false]
    // The shortest event is 39 bits.
    while reader.remaining >= 39 {
      let saved = (self, countSeen)
      guard let event = readEvent(&reader, countSeen: &countSeen) else {
        (self, countSeen) = saved
        break
      }
      events.append(event)
    }
    guard !events.isEmpty || payload.isEmpty else {
      throw .packetTooShort(
        opcode: FromButtonOpcode.buttonEventDuoNotification.rawValue, length: payload.count + 1, needed: 6)
    }
    return events
  }

  private mutating func readEvent(_ reader: inout BitReader, countSeen: inout [Bool]) -> DuoButtonEvent? {
    guard let button = reader.read(1).map(Int.init) else { return nil }
    // The first event of each button carries its counter delta; later ones count up by one.
    if !countSeen[button] {
      guard var delta = reader.read(1) else { return nil }
      if delta > 0 {
        guard let wide = reader.read(1) else { return nil }
        if wide == 1 {
          guard let widthIndex = reader.read(2), let value = reader.read([2, 4, 8, 32][Int(widthIndex)]) else {
            return nil
          }
          delta = value
        }
      }
      eventCounts[button] &+= delta + 1
      countSeen[button] = true
    } else {
      eventCounts[button] &+= 1
    }
    guard let widthIndex = reader.read(3),
      let timestampDelta = reader.read([8, 10, 13, 16, 24, 32, 40, 48][Int(widthIndex)])
    else { return nil }
    lastTimestamp &+= timestampDelta

    var wasQueued = false
    var wasQueuedLast = false
    if !hasSeenEndOfQueue {
      guard let endMarker = reader.read(1) else { return nil }
      if endMarker == 0 {
        wasQueued = true
      } else {
        hasSeenEndOfQueue = true
        guard let discarded = reader.read(1) else { return nil }
        if discarded == 0 {
          wasQueued = true
          wasQueuedLast = true
        }
      }
    }
    guard let rawKind = reader.read(3), let kind = DuoButtonEvent.Kind(rawValue: UInt8(rawKind)) else { return nil }
    var upFlag = false
    var nextUpWillBeDoubleClick = false
    if kind == .upWithFlag {
      guard let flag = reader.read(1) else { return nil }
      upFlag = flag == 1
    } else if kind == .hold {
      guard let flag = reader.read(1) else { return nil }
      nextUpWillBeDoubleClick = flag == 1
    }
    var gesture: DuoButtonEvent.Gesture?
    if rawKind <= 4 || kind == .singleClickTimeout {
      guard let reported = reader.read(1) else { return nil }
      if reported == 1 {
        guard let recognized = reader.read(1) else { return nil }
        if recognized == 1 {
          guard let direction = reader.read(2) else { return nil }
          gesture = DuoButtonEvent.Gesture(rawValue: UInt8(direction) + 1)
        }
      }
    }
    guard let x = reader.read(8), let y = reader.read(8), let z = reader.read(8) else { return nil }
    // An up or down not preceded by a hold or single-click timeout skips the odd count.
    if rawKind <= 5 && eventCounts[button] % 2 == 0 { eventCounts[button] &+= 1 }
    return DuoButtonEvent(
      buttonIndex: button, eventCount: eventCounts[button], timestamp: lastTimestamp, kind: kind,
      doubleClickWasHold: (kind == .upAfterHold || (kind == .upWithFlag && upFlag))
        && (kind == .upDoubleClick || kind == .upWithFlag),
      nextUpWillBeDoubleClick: nextUpWillBeDoubleClick, gesture: gesture,
      acceleration: (Int8(bitPattern: UInt8(x)), Int8(bitPattern: UInt8(y)), Int8(bitPattern: UInt8(z))),
      wasQueued: wasQueued, wasQueuedLast: wasQueuedLast)
  }
}

/// One decoded Duo event.
public struct DuoButtonEvent: Sendable, Equatable {
  public enum Kind: UInt8, Sendable {
    case up = 0, upSingleClick, upAfterHold, upDoubleClick
    /// A double click whose second press may have been a hold (the flag says).
    case upWithFlag
    case down, singleClickTimeout, hold
  }

  /// A swipe on the button's surface.
  public enum Gesture: UInt8, Sendable {
    case left = 1, right, up, down
  }

  /// 0 or 1: which of the two buttons.
  public var buttonIndex: Int
  public var eventCount: UInt64
  public var timestamp: UInt64
  public var kind: Kind
  public var doubleClickWasHold: Bool
  public var nextUpWillBeDoubleClick: Bool
  public var gesture: Gesture?
  public var acceleration: (Int8, Int8, Int8)
  public var wasQueued: Bool
  public var wasQueuedLast: Bool

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.buttonIndex == rhs.buttonIndex && lhs.eventCount == rhs.eventCount && lhs.timestamp == rhs.timestamp
      && lhs.kind == rhs.kind && lhs.doubleClickWasHold == rhs.doubleClickWasHold
      && lhs.nextUpWillBeDoubleClick == rhs.nextUpWillBeDoubleClick && lhs.gesture == rhs.gesture
      && lhs.acceleration == rhs.acceleration && lhs.wasQueued == rhs.wasQueued
      && lhs.wasQueuedLast == rhs.wasQueuedLast
  }

  /// Whether the central should acknowledge after this event (a click was decided).
  public var decidesClick: Bool { kind == .upSingleClick || kind == .upDoubleClick || kind == .singleClickTimeout }
}

/// Reads bit fields least significant bit first; nil at the end of the data.
struct BitReader {
  let bytes: [UInt8]
  private(set) var position = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var remaining: Int { bytes.count * 8 - position }

  mutating func read(_ width: Int) -> UInt64? {
    guard width <= 64, remaining >= width else { return nil }
    var value: UInt64 = 0
    for bit in 0..<width {
      let index = position + bit
      value |= UInt64((bytes[index / 8] >> UInt8(index % 8)) & 1) << UInt64(bit)
    }
    position += width
    return value
  }
}
