import PatchbayValues
import PatchbayWire
import Testing

/// The hot path encodes into temporary memory and decodes where a frame was received; both
/// must give exactly what the array forms give (the bytes on the wire did not change).
@Suite struct FrameEncodingInPlaceTests {
  static let hubMessages: [HubMessage] = [
    .hello(protocolVersion: 2), .describe(libraryPath: "/usr/lib/patchbay/plugins/libpatchbay-plugin-hue.so"),
    .load(
      LoadRequest(
        libraryPath: "/p.so", instanceName: "lamp", configJSON: #"{"bridge":"10.0.0.2"}"#, stateDirectory: "/s",
        logLevel: 2)),
    .start, .input(port: 2, value: .color(HSBColor(hue: 1, saturation: 2, brightness: 3))),
    .input(port: 7, value: .text(String(repeating: "é", count: 2000)), hops: 3),
    .input(port: 1, value: .integer(-42)), .heartbeat(sequence: 7), .stop, .retire,
  ]

  @Test func aFrameInTemporaryMemoryIsTheArraysBytes() throws {
    for message in Self.hubMessages {
      let bytes = message.withEncoded { Array($0) }
      #expect(bytes == message.encode())
      #expect(try bytes.withUnsafeBytes { frame throws(WireError) in try HubMessage.decode(frame) } == message)
    }
    for message in FrameDecodingTests.samples {
      let bytes = message.withEncoded { Array($0) }
      #expect(bytes == message.encode())
      #expect(try bytes.withUnsafeBytes { frame throws(WireError) in try HostMessage.decode(frame) } == message)
    }
  }

  /// The hop's own send (`trySendInput`) puts `HubMessage.input`'s bytes on a real socket.
  @Test func anInputSentStraightFromTheStackIsTheMessagesFrame() throws {
    let (hub, host) = try PacketSocket.pair()
    defer {
      hub.close()
      host.close()
    }
    for case .input(let port, let value, let hops) in Self.hubMessages {
      #expect(hub.trySendInput(port: port, value: value, hops: hops) == .sent)
      guard case .frame(let bytes) = host.receive() else {
        Issue.record("no frame for input \(port)")
        continue
      }
      #expect(bytes == HubMessage.input(port: port, value: value, hops: hops).encode())
    }
  }

  @Test func aBatchIsItsFramesOneAfterTheOther() {
    let messages = Self.hubMessages
    HubMessage.withEncoded(messages) { joined, lengths in
      #expect(Array(lengths) == messages.map { $0.encode().count })
      #expect(Array(joined) == messages.flatMap { $0.encode() })
    }
    HubMessage.withEncoded([]) { joined, lengths in
      #expect(joined.isEmpty && lengths.isEmpty)
    }
  }

  @Test func aFrameReadInPlaceIsCheckedLikeAnArray() {
    let frame = HubMessage.input(port: 1, value: .integer(5)).encode()
    for length in 0..<frame.count {
      let truncated = Array(frame.prefix(length))
      #expect(throws: WireError.self) {
        try truncated.withUnsafeBytes { bytes throws(WireError) in try HubMessage.decode(bytes) }
      }
    }
  }
}
