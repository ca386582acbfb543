import FlicBLEBlueZ
import FlicBLEProtocol
import FlicBLESimulator
import Foundation
import Testing

/// A Flic Duo end to end in memory: pairing tells the central it is a Duo, events start with the
/// Duo's own request and answer, both buttons and swipes arrive with their own counters, and
/// queued events come once across reconnects.
@Suite struct DuoSessionTests {
  /// Clicks, double clicks and holds of one button, as hub actions (down/up left out).
  static func gestures(_ presses: [ButtonPress], button: Int) -> [ButtonAction] {
    presses.filter { $0.buttonIndex == button && $0.action != .down && $0.action != .up }.map(\.action)
  }

  @Test func theEncoderWritesWhatTheDecoderReads() throws {
    var encoder = DuoEventEncoder(eventCounts: [6, 0])
    var decoder = DuoEventDecoder(eventCounts: [6, 0], lastTimestamp: 0, hasSeenEndOfQueue: false)
    let events: [DuoEventEncoder.Event] = [
      .init(buttonIndex: 0, eventCount: 9, timestamp: 100_000, kind: .down, wasQueued: true),
      .init(buttonIndex: 1, eventCount: 1, timestamp: 100_300, kind: .down, wasQueued: true),
      .init(
        buttonIndex: 1, eventCount: 3, timestamp: 106_000, kind: .up, gesture: .right, wasQueued: true,
        wasQueuedLast: true),
      .init(buttonIndex: 0, eventCount: 11, timestamp: 1 << 40, kind: .up),
      .init(buttonIndex: 0, eventCount: 12, timestamp: (1 << 40) + 20_000, kind: .singleClickTimeout),
      .init(buttonIndex: 0, eventCount: 300, timestamp: (1 << 40) + 30_000, kind: .hold),
    ]
    for event in events {
      let decoded = try decoder.decode(encoder.encode(event))
      #expect(decoded.count == 1)
      let got = try #require(decoded.first)
      #expect(got.buttonIndex == event.buttonIndex && got.eventCount == event.eventCount)
      #expect(got.timestamp == event.timestamp && got.kind == event.kind && got.gesture == event.gesture)
      #expect(got.wasQueued == event.wasQueued && got.wasQueuedLast == event.wasQueuedLast)
    }
  }

  @Test func aDuoPairsAndReportsBothButtonsAndSwipes() throws {
    var link = InMemoryLink(button: .seeded(3, model: .duo), stored: nil)
    let stored = try #require(
      link.drain().compactMap { if case .paired(let button) = $0 { button } else { nil } }.first)
    #expect(link.central.isDuo, "FullVerifyResponse2 says isDuo")
    #expect(link.central.state == .established)

    link.press(.click)
    link.press(.click, buttonIndex: 1)
    link.press(.swipeLeft)
    link.press(.swipeUp, buttonIndex: 1)
    link.press(.doubleClick, buttonIndex: 1)
    link.press(.hold)
    #expect(Self.gestures(link.presses, button: 0) == [.click, .hold])
    #expect(Self.gestures(link.presses, button: 1) == [.click, .doubleClick])
    #expect(link.swipes.map { "\($0.buttonIndex) \($0.direction.name)" } == ["0 left", "1 up"])
    #expect(link.presses.allSatisfy { !$0.wasQueued })
    let cursor = try #require(link.central.cursor)
    #expect(cursor.eventCount == link.button.eventCount && cursor.smallEventCount == link.button.smallEventCount)
    #expect(cursor.smallEventCount > 0 && stored.cursor.smallEventCount == 0)
  }

  @Test func queuedDuoEventsArriveOnceAcrossReconnects() throws {
    var link = InMemoryLink(button: .seeded(5, model: .duo), stored: nil)
    var stored = try #require(
      link.drain().compactMap { if case .paired(let button) = $0 { button } else { nil } }.first)
    link.press(.click, buttonIndex: 1)
    stored.cursor = try #require(link.central.cursor)
    _ = link.drain()

    // Out of reach: a small click and a big swipe wait in the button.
    var button = link.button
    button.disconnect()
    _ = button.press(.click, buttonIndex: 1)
    _ = button.press(.swipeDown)
    button.advance(seconds: 1)
    let again = InMemoryLink(button: button, stored: stored, options: InMemoryLink.options())
    #expect(again.central.isDuo, "QuickVerifyResponse says isDuo")
    #expect(Self.gestures(again.presses, button: 1) == [.click])
    #expect(again.presses.allSatisfy { $0.wasQueued })
    #expect(again.swipes.map(\.direction) == [.down])
    #expect(again.swipes.first?.wasQueued == true)
    stored.cursor = try #require(again.central.cursor)

    // The next connection, from the stored cursor: nothing again.
    button = again.button
    button.disconnect()
    let third = InMemoryLink(button: button, stored: stored, options: InMemoryLink.options())
    #expect(third.presses.isEmpty && third.swipes.isEmpty)
    #expect(third.central.state == .established)
  }

  @Test func aPairingFileKeepsTheSmallButtonsCountAndOldFilesStillLoad() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("duo-pairing-\(getpid())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = PairingFile(stateDirectory: directory, button: "desk")
    let button = StoredButton(
      pairing: Pairing(identifier: 7, key: Array(0..<16)), address: [1, 2, 3, 4, 5, 6], buttonUUID: [],
      serialNumber: "BD00-D00001", name: "", firmwareVersion: 1,
      cursor: EventCursor(eventCount: 12, bootID: 99, smallEventCount: 7))
    try file.save(button)
    #expect(try file.load().cursor == EventCursor(eventCount: 12, bootID: 99, smallEventCount: 7))

    // A file written before the small button's count existed.
    let old = try String(contentsOfFile: file.path, encoding: .utf8).split(separator: "\n")
      .filter { !$0.hasPrefix("small_event_count=") }.joined(separator: "\n")
    try old.write(toFile: file.path, atomically: true, encoding: .utf8)
    #expect(try file.load().cursor == EventCursor(eventCount: 12, bootID: 99, smallEventCount: 0))
  }
}
