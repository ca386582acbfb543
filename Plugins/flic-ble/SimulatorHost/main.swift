import FlicBLEProtocol
import FlicBLESimulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// One simulated Flic 2 on standard input/output, one command per line, for centrals in other
// processes (Tests/FlicBLETests/Scripts/pyflic_against_simulator.py gives it a socket as stdin/stdout).
//   connect | disconnect | write HEX | press [small-]click|double-click|hold|swipe-left|... | advance SECONDS | reset
//   | hold-for-pairing | reboot | factory-key | state
//   | twist [+-]UNITS | push-twist [+-]UNITS     (a Twist: turn the dial, or turn it while pushed; 4096 = a twelfth)
//   | pair-in-process   (full verify with a central in this process that trusts the test key; prints the
//                        pairing as "pairing FIELD=VALUE ..." in the plugin's pairing-file fields)
// Every answer ends with "ok" (or "error ..."); notifications come before it as "notify HEX".
// A line per packet goes to standard error, for the transcript.

/// Writes a whole line to a file descriptor at once, unbuffered: the peer waits for each answer.
func writeLine(_ text: String, to descriptor: Int32) {
  var bytes = Array((text + "\n").utf8)
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
    guard written > 0 else { return }
    offset += written
  }
}

func print(_ text: String) { writeLine(text, to: 1) }

/// `--address AA:BB:CC:DD:EE:FF` gives the button another address (a stand-in with several buttons);
/// `--model duo` makes it a Flic Duo (`press small-click` then presses its small button).
func identity() -> SimulatedFlicButton.Identity {
  var identity = SimulatedFlicButton.Identity()
  let arguments = CommandLine.arguments
  if let index = arguments.firstIndex(of: "--model"), index + 1 < arguments.count,
    let model = SimulatedFlicButton.Model(rawValue: arguments[index + 1])
  {
    identity.model = model
    // pyflic-ble tells a Duo by its serial number's first letter, D, and a Twist by T.
    identity.serialNumber =
      switch model {
      case .duo: "DD00-C00001"
      case .twist: "TW00-C00001"
      case .flic2: identity.serialNumber
      }
  }
  if let index = arguments.firstIndex(of: "--address"), index + 1 < arguments.count {
    let parts = arguments[index + 1].split(separator: ":").compactMap { UInt8($0, radix: 16) }
    if parts.count == 6 { identity.address = parts.reversed() }
  }
  return identity
}

let model = identity().model
var button = SimulatedFlicButton(identity: identity(), factoryKey: SimulatedFlicButton.testFactoryKey(for: model))

func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

func bytes(_ text: Substring) -> [UInt8]? {
  guard text.count % 2 == 0 else { return nil }
  var out: [UInt8] = []
  var index = text.startIndex
  while index < text.endIndex {
    let next = text.index(index, offsetBy: 2)
    guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
    out.append(byte)
    index = next
  }
  return out
}

func describe(_ piece: [UInt8], toButton: Bool) -> String {
  if model == .twist, let first = piece.first {
    // No frame header on a Twist: the opcode comes first.
    let name =
      toButton
      ? TwistToButtonOpcode(rawValue: first).map { "\($0)" } : TwistFromButtonOpcode(rawValue: first).map { "\($0)" }
    return "\(name ?? "opcode \(first)") [\(piece.count) bytes]"
  }
  guard piece.count >= 2 else { return "\(piece.count) bytes" }
  let header = FrameHeader(byte: piece[0])
  let name: String
  if toButton {
    name = ToButtonOpcode(rawValue: piece[1]).map { "\($0)" } ?? "opcode \(piece[1])"
  } else {
    name = FromButtonOpcode(rawValue: piece[1]).map { "\($0)" } ?? "opcode \(piece[1])"
  }
  return "conn \(header.connectionID)\(header.newlyAssigned ? " (new)" : "")\(header.moreFragments ? " +frag" : "") "
    + "\(name) [\(piece.count) bytes]"
}

func log(_ text: String) { writeLine("sim: \(text)", to: 2) }

func emit(_ notifications: [[UInt8]]) {
  for notification in notifications {
    log("-> \(describe(notification, toButton: false))")
    print("notify \(hex(notification))")
  }
}

/// Pairs the simulated button with a central in this process, as a phone would, and disconnects:
/// the plugin (also a release build, which trusts no test key) then only quick-verifies.
@MainActor func pairInProcess() -> String? {
  let key = Array(SimulatedFlicButton.testFactoryKey(for: model).publicKey.rawRepresentation)
  var central = FlicBLECentral(
    stored: nil,
    options: .init(
      trustedKeys: TrustedFactoryKeys(testOnlyKeys: [key]), expectedAddress: button.identity.address,
      twist: model == .twist ? .init() : nil))
  button.connect()
  defer { button.disconnect() }
  var toButton = central.start()
  var paired: StoredButton?
  while !toButton.isEmpty {
    for notification in button.receive(toButton.removeFirst()) {
      let step = central.receive(notification)
      toButton += step.writes
      for event in step.events {
        if case .paired(let stored) = event { paired = stored }
        if case .cursor(let cursor) = event { paired?.cursor = cursor }
      }
    }
  }
  guard let paired else { return nil }
  let address = paired.address.reversed().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: ":")
  return [
    "address=\(address)", "pairing_id=\(paired.pairing.identifier)", "pairing_key=\(hex(paired.pairing.key))",
    "button_uuid=\(hex(paired.buttonUUID))", "serial=\(paired.serialNumber)", "firmware=\(paired.firmwareVersion)",
    "event_count=\(paired.cursor.eventCount)", "boot_id=\(paired.cursor.bootID)",
  ].joined(separator: " ")
}

while let line = readLine() {
  let parts = line.split(separator: " ", maxSplits: 1)
  guard let command = parts.first else { continue }
  let argument = parts.count > 1 ? parts[1] : ""
  switch command {
  case "connect":
    button.connect()
    log("BLE connected")
  case "disconnect":
    button.disconnect()
    log("BLE disconnected")
  case "write":
    guard let write = bytes(argument) else {
      print("error bad hex")
      continue
    }
    log("<- \(describe(write, toButton: true))")
    emit(button.receive(write))
  case "press":
    let small = argument.hasPrefix("small-")
    guard let gesture = PressGesture(rawValue: String(small ? argument.dropFirst(6) : argument)),
      !small || button.identity.model == .duo
    else {
      print("error unknown gesture \(argument)")
      continue
    }
    let notifications = button.press(gesture, buttonIndex: small ? 1 : 0)
    log("person: \(argument)\(notifications.isEmpty ? " (no central has started events: queued)" : "")")
    emit(notifications)
  case "twist", "push-twist":
    guard model == .twist, let delta = Int32(argument.hasPrefix("+") ? argument.dropFirst() : argument) else {
      print("error \(command) needs a Twist and units like +4096 or -2048")
      continue
    }
    let notifications = button.turnTwist(delta, pushed: command == "push-twist")
    log("person: \(command) \(argument)\(notifications.isEmpty ? " (no central has started events)" : "")")
    emit(notifications)
  case "pair-in-process":
    guard let fields = pairInProcess() else {
      print("error the in-process central could not pair (is the button in pairing mode?)")
      continue
    }
    print("pairing " + fields)
  case "advance":
    button.advance(seconds: Double(argument) ?? 0)
  case "reset":
    log("owner reset: pairings forgotten")
    emit(button.resetByOwner())
  case "hold-for-pairing":
    button.holdForPairing()
  case "reboot":
    button.reboot()
  case "factory-key":
    print("key \(SimulatedFlicButton.testFactoryKeyHex(for: model))")
  case "state":
    print(
      "state pairings=\(button.pairingCount) eventCount=\(button.eventCount) bootID=\(button.bootID) "
        + "publicMode=\(button.isInPublicMode)"
        + (model == .twist ? " slot=\(button.twistSlot) position=\(button.twistPosition(mode: button.twistSlot))" : ""))
  default:
    print("error unknown command \(command)")
    continue
  }
  print("ok")
}
