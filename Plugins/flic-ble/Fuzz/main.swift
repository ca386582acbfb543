import FlicBLEProtocol
import FlicBLESimulator

#if canImport(Glibc)
  import Glibc
#endif

// libFuzzer target for what comes over the air: every decoder (Flic 2 / Duo both ways, Twist, Duo
// event streams, the reassembler), and the two state machines fed the input as GATT pieces: a
// central pairing or reconnecting, and a simulated button before and after verify. Any bytes
// must be refused or handled, never crash. Not part of `swift build`; run
// `Plugins/flic-ble/Fuzz/run-fuzz`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlicBLE(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []

  if let message = try? FromButtonMessage.decode(bytes) {
    precondition((try? FromButtonMessage.decode(message.encoded())) != nil, "re-encoded message does not decode")
  }
  if let message = try? ToButtonMessage.decode(bytes) {
    precondition((try? ToButtonMessage.decode(message.encoded())) != nil, "re-encoded request does not decode")
  }
  if let message = try? TwistFromButtonMessage.decode(bytes) {
    precondition(
      (try? TwistFromButtonMessage.decode(message.encoded())) != nil, "re-encoded Twist message does not decode")
  }
  if let message = try? TwistToButtonMessage.decode(bytes) {
    precondition(
      (try? TwistToButtonMessage.decode(message.encoded())) != nil, "re-encoded Twist request does not decode")
  }
  var duo = DuoEventDecoder()
  _ = try? duo.decode(bytes)

  // The input as a run of GATT pieces: a length byte, then that many bytes.
  var pieces: [[UInt8]] = []
  var offset = 0
  while offset < bytes.count {
    let length = Int(bytes[offset])
    offset += 1
    pieces.append(Array(bytes[offset..<min(bytes.count, offset + length)]))
    offset += length
  }

  var reassembler = PacketReassembler(framing: .headered)
  for piece in pieces {
    if let packet = try? reassembler.receive(piece)?.packet {
      precondition(packet.count <= PacketFraming.maximumPacketLength, "reassembled packet over the limit")
    }
  }

  let options = FlicBLECentral.Options(trustedKeys: Fixtures.trusted, random: fixedRandom())
  var pairing = FlicBLECentral(stored: nil, options: options)
  _ = pairing.start()
  let stored = StoredButton(
    pairing: Pairing(identifier: 1, key: Array(repeating: 7, count: 16)), address: [1, 2, 3, 4, 5, 6],
    buttonUUID: [], serialNumber: "", name: "", firmwareVersion: 0, cursor: .none)
  var reconnecting = FlicBLECentral(stored: stored, options: options)
  _ = reconnecting.start()
  var button = Fixtures.button
  var twistOptions = options
  twistOptions.twist = .init(selector: bytes.first.map { $0 & 1 == 1 } ?? false)
  var twistPairing = FlicBLECentral(stored: nil, options: twistOptions)
  _ = twistPairing.start()
  var twistReconnecting = FlicBLECentral(stored: stored, options: twistOptions)
  _ = twistReconnecting.start()
  var twist = Fixtures.twist
  for piece in pieces {
    _ = pairing.receive(piece)
    _ = reconnecting.receive(piece)
    _ = button.receive(piece)
    _ = twistPairing.receive(piece)
    _ = twistReconnecting.receive(piece)
    _ = twist.receive(piece)
  }
  return 0
}

/// Made once: key generation and signing would dominate every run.
enum Fixtures {
  static let factoryKey = SimulatedFlicButton.testFactoryKey()
  static let trusted = TrustedFactoryKeys(testOnlyKeys: [Array(factoryKey.publicKey.rawRepresentation)])
  static let button: SimulatedFlicButton = {
    var button = SimulatedFlicButton(factoryKey: factoryKey, random: fixedRandom())
    button.connect()
    return button
  }()
  static let twist: SimulatedFlicButton = {
    var button = SimulatedFlicButton(identity: .init(model: .twist), factoryKey: factoryKey, random: fixedRandom())
    button.connect()
    return button
  }()
}

/// Fixed bytes, so that every run of an input takes the same path.
func fixedRandom() -> RandomBytes {
  RandomBytes { count in (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) } }
}

// SwiftPM renames an executable's main, so this main hands control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzFlicBLE(data, size) })
