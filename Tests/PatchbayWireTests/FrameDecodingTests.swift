import PatchbayValues
import PatchbayWire
import Testing

@Suite struct FrameDecodingTests {
  static let samples: [HostMessage] = [
    .hello(protocolVersion: 1, pid: 42),
    .described(PluginInfo(name: "flic", version: "1.0", description: "buttons", abiMajor: 1, abiMinor: 0)),
    .created(
      PluginInfo(name: "x", version: "1", description: "", abiMajor: 1, abiMinor: 0),
      ports: [PortDescriptor(name: "a.b", direction: .output, kind: .state, type: .light, description: "d")]),
    // ABI 1.2 attributes: a mirroring output and the peer state.
    .created(
      PluginInfo(name: "y", version: "1", description: "", abiMajor: 1, abiMinor: 2),
      ports: [
        PortDescriptor(name: "lamp.on", direction: .input, kind: .state, type: .bool),
        PortDescriptor(name: "lamp.on.set", direction: .output, kind: .state, type: .bool, mirrors: "lamp.on"),
        PortDescriptor(name: "peer", direction: .output, kind: .state, type: .text, statusRole: .peer),
      ]),
    .failed(stage: .start, status: -5, message: "unreachable"),
    .started,
    .publish(
      port: 3,
      value: .light(LightCommand(on: true, brightness: 50, color: HSBColor(hue: 120, saturation: 75, brightness: 100)))),
    .publish(port: 1, value: .button(ButtonEvent(action: .doubleClick, queued: true, ageMs: 1500))),
    .publish(port: 0, value: .text("héllo")),
    .publish(port: 2, value: .integer(5), hops: 15),
    .log(level: 4, message: "careful"),
    .heartbeat(sequence: 99),
    .stopped,
    .refusals(total: 7),
    .publishPressure(busy: 1_000_000, waits: 3),
    .confined(landlockABI: 7, network: true, signals: true, seccomp: true),
    .confined(landlockABI: 0, network: false, signals: false, seccomp: true),
    .refusedCalls(total: 4),
  ]

  @Test func everyHostMessageRoundTrips() throws {
    for message in Self.samples {
      #expect(try HostMessage.decode(message.encode()) == message)
    }
  }

  /// Kinds are numbered append-only: a host and hub of different builds agree on the old ones.
  @Test func hostMessageKindNumbersNeverChange() throws {
    #expect(HostMessage.stopped.encode()[1] == 9)
    #expect(HostMessage.refusals(total: 1).encode()[1] == 10)
    let pressure = HostMessage.publishPressure(busy: 0x0102, waits: 5).encode()
    #expect(pressure == [2, 11, 0, 0, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0])
  }

  @Test func everyHubMessageRoundTrips() throws {
    let messages: [HubMessage] = [
      .hello(protocolVersion: 1), .describe(libraryPath: "/x.so"),
      .load(LoadRequest(libraryPath: "/p.so", instanceName: "i", configJSON: "{}", stateDirectory: "/s", logLevel: 2)),
      .start, .input(port: 2, value: .color(HSBColor(hue: 1, saturation: 2, brightness: 3))), .heartbeat(sequence: 7),
      .input(port: 0, value: .trigger, hops: 16), .stop,
    ]
    for message in messages {
      #expect(try HubMessage.decode(message.encode()) == message)
    }
  }

  /// Version 2: the hop count follows the port, so a loop through plugins can be cut.
  @Test func inputAndPublishCarryTheirHopCount() throws {
    #expect(HubMessage.input(port: 1, value: .bool(true), hops: 9).encode().prefix(9) == [2, 5, 0, 0, 1, 0, 0, 0, 9])
    #expect(
      HostMessage.publish(port: 1, value: .bool(true), hops: 3).encode().prefix(9) == [2, 6, 0, 0, 1, 0, 0, 0, 3])
    // A version-1 frame (no hop count) is refused as another version, not misread.
    #expect(throws: WireError.self) { try HubMessage.decode([1, 5, 0, 0, 1, 0, 0, 0, 2, 1]) }
  }

  @Test func truncatedFramesAreRejected() {
    for message in Self.samples {
      let frame = message.encode()
      for length in 0..<frame.count {
        #expect(throws: WireError.self) { try HostMessage.decode(Array(frame.prefix(length))) }
      }
    }
  }

  @Test func trailingBytesAreRejected() {
    #expect(throws: WireError.self) { try HostMessage.decode(HostMessage.started.encode() + [0]) }
  }

  @Test func oversizedFramesAreRejected() {
    let frame = [UInt8](repeating: 0, count: WireProtocol.maximumFrameBytes + 1)
    #expect(throws: WireError.oversized(frame.count)) { try HostMessage.decode(frame) }
  }

  @Test func unknownVersionTypeAndValuesAreRejected() {
    #expect(throws: WireError.unknownVersion(9)) { try HostMessage.decode([9, 5, 0, 0]) }
    #expect(throws: WireError.unknownMessage(200)) { try HostMessage.decode([2, 200, 0, 0]) }
    // publish (hop count 0) with value type 77
    #expect(throws: WireError.self) { try HostMessage.decode([2, 6, 0, 0, 0, 0, 0, 0, 0, 77]) }
    // a string length far beyond the frame
    #expect(throws: WireError.self) { try HostMessage.decode([2, 7, 0, 0, 2, 0xff, 0xff, 0xff, 0x7f]) }
    // a number that is NaN
    var nan = [UInt8]([2, 6, 0, 0, 0, 0, 0, 0, 0, 4])
    withUnsafeBytes(of: Double.nan.bitPattern.littleEndian) { nan += $0 }
    #expect(throws: WireError.self) { try HostMessage.decode(nan) }
  }

  @Test func randomGarbageNeverCrashes() {
    var generator = SystemRandomNumberGenerator()
    var accepted = 0
    for _ in 0..<20_000 {
      let length = Int.random(in: 0..<64, using: &generator)
      var frame = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      // Make half of them look like real headers so decoding goes deeper.
      if frame.count >= 4, Bool.random(using: &generator) {
        frame[0] = 1
        frame[2] = 0
        frame[3] = 0
        frame[1] = UInt8.random(in: 1...11, using: &generator)
      }
      if (try? HostMessage.decode(frame)) != nil { accepted += 1 }
      _ = try? HubMessage.decode(frame)
    }
    #expect(accepted < 20_000)
  }
}
