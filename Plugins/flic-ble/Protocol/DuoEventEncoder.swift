/// The button's side of `DuoEventDecoder`: writes Flic Duo events in the bit-packed layout that
/// pyflic-ble reads (for the simulator and the tests). It mirrors the decoder's running state,
/// which both sides start at InitButtonEventsDuoResponse: the counts it reported, timestamp 0,
/// and the end-of-queue marker not yet sent.
public struct DuoEventEncoder: Sendable, Equatable {
  public private(set) var eventCounts: [UInt64]
  public private(set) var lastTimestamp: UInt64 = 0
  public private(set) var hasSentEndOfQueue = false

  public init(eventCounts: [UInt64]) {
    self.eventCounts = Array(eventCounts.prefix(2)) + [UInt64](repeating: 0, count: Swift.max(0, 2 - eventCounts.count))
  }

  /// One event to send. `eventCount` must follow the Duo's counter rules (down and up odd), and
  /// timestamps must not go back.
  public struct Event: Sendable, Equatable {
    public var buttonIndex: Int
    public var eventCount: UInt64
    public var timestamp: UInt64
    public var kind: DuoButtonEvent.Kind
    public var gesture: DuoButtonEvent.Gesture?
    public var wasQueued: Bool
    public var wasQueuedLast: Bool

    public init(
      buttonIndex: Int, eventCount: UInt64, timestamp: UInt64, kind: DuoButtonEvent.Kind,
      gesture: DuoButtonEvent.Gesture? = nil, wasQueued: Bool = false, wasQueuedLast: Bool = false
    ) {
      self.buttonIndex = buttonIndex
      self.eventCount = eventCount
      self.timestamp = timestamp
      self.kind = kind
      self.gesture = gesture
      self.wasQueued = wasQueued
      self.wasQueuedLast = wasQueuedLast
    }
  }

  /// The payload (after the opcode) of one notification carrying one event. One event a packet
  /// keeps the counter explicit: the decoder reads a delta for the first event of each button.
  public mutating func encode(_ event: Event) -> [UInt8] {
    var writer = BitWriter()
    let button = event.buttonIndex == 0 ? 0 : 1
    writer.write(UInt64(button), 1)
    let delta = event.eventCount &- eventCounts[button] &- 1
    if delta == 0 {
      writer.write(0, 1)
    } else if delta == 1 {
      writer.write(1, 1)
      writer.write(0, 1)
    } else {
      writer.write(1, 1)
      writer.write(1, 1)
      let widths = [2, 4, 8, 32]
      let index = widths.firstIndex { delta < (1 << UInt64($0)) } ?? 3
      writer.write(UInt64(index), 2)
      writer.write(delta, widths[index])
    }
    eventCounts[button] = event.eventCount
    let timestampDelta = event.timestamp &- lastTimestamp
    let widths = [8, 10, 13, 16, 24, 32, 40, 48]
    let index = widths.firstIndex { timestampDelta < (1 << UInt64($0)) } ?? 7
    writer.write(UInt64(index), 3)
    writer.write(timestampDelta, widths[index])
    lastTimestamp = event.timestamp
    if !hasSentEndOfQueue {
      if event.wasQueued && !event.wasQueuedLast {
        writer.write(0, 1)
      } else {
        // The end marker: on the last queued event, or on the first live one when none was queued.
        writer.write(1, 1)
        writer.write(event.wasQueued ? 0 : 1, 1)
        hasSentEndOfQueue = true
      }
    }
    writer.write(UInt64(event.kind.rawValue), 3)
    if event.kind == .upWithFlag || event.kind == .hold { writer.write(0, 1) }
    if event.kind.rawValue <= 4 || event.kind == .singleClickTimeout {
      if let gesture = event.gesture {
        writer.write(1, 1)
        writer.write(1, 1)
        writer.write(UInt64(gesture.rawValue - 1), 2)
      } else {
        writer.write(0, 1)
      }
    }
    // The accelerometer: a button lying still, face up.
    writer.write(0, 8)
    writer.write(0, 8)
    writer.write(64, 8)
    return writer.bytes
  }
}

/// Writes bit fields least significant bit first (the order `BitReader` reads).
struct BitWriter {
  private(set) var bytes: [UInt8] = []
  private var position = 0

  mutating func write(_ value: UInt64, _ width: Int) {
    for bit in 0..<width {
      if position % 8 == 0 { bytes.append(0) }
      if (value >> UInt64(bit)) & 1 == 1 { bytes[bytes.count - 1] |= 1 << UInt8(position % 8) }
      position += 1
    }
  }
}
