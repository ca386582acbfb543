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
    // pyflic-ble tells a Duo by its serial number's first letter, D.
    identity.serialNumber = model == .duo ? "DD00-C00001" : identity.serialNumber
  }
  if let index = arguments.firstIndex(of: "--address"), index + 1 < arguments.count {
    let parts = arguments[index + 1].split(separator: ":").compactMap { UInt8($0, radix: 16) }
    if parts.count == 6 { identity.address = parts.reversed() }
  }
  return identity
}

var button = SimulatedFlicButton(identity: identity(), factoryKey: SimulatedFlicButton.testFactoryKey())

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
    print("key \(SimulatedFlicButton.testFactoryKeyHex)")
  case "state":
    print(
      "state pairings=\(button.pairingCount) eventCount=\(button.eventCount) bootID=\(button.bootID) "
        + "publicMode=\(button.isInPublicMode)")
  default:
    print("error unknown command \(command)")
    continue
  }
  print("ok")
}
