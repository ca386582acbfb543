import FlicProtocol

/// One line of the simulator's control channel (stdin, the control socket, or a script).
enum ControlCommand: Equatable {
  case press(BluetoothAddress, PressGesture)
  case queued(BluetoothAddress, PressGesture, ageSeconds: UInt32)
  case disconnect(BluetoothAddress)
  case reconnect(BluetoothAddress)
  case battery(BluetoothAddress, Int8)
  case addButton(BluetoothAddress, name: String)
  case addPendingButton(BluetoothAddress, name: String, isPrivate: Bool)
  case makePublic(BluetoothAddress)
  case waitChannel(BluetoothAddress, timeoutSeconds: Double)
  case sleep(milliseconds: Int)
  case status
  case quit

  static let usage = """
    commands: press ADDR single|double|hold|down|up; queued ADDR GESTURE AGE_S; disconnect ADDR; \
    reconnect ADDR; battery ADDR PERCENT; add-button ADDR NAME; add-pending-button ADDR NAME; \
    add-private-button ADDR NAME; make-public ADDR; wait-channel ADDR [TIMEOUT_S]; sleep MS; status; quit
    """

  /// Parses a line; nil for a blank line or a `#` comment.
  static func parse(_ line: String) throws(ControlError) -> ControlCommand? {
    let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
    guard let verb = words.first, !verb.hasPrefix("#") else { return nil }
    let arguments = Array(words.dropFirst())

    func address(_ index: Int) throws(ControlError) -> BluetoothAddress {
      guard index < arguments.count else { throw ControlError("\(verb): missing button address") }
      guard let address = BluetoothAddress(arguments[index]) else {
        throw ControlError("\(verb): '\(arguments[index])' is not a Bluetooth address like 80:e4:da:71:b6:8e")
      }
      return address
    }
    func gesture(_ index: Int) throws(ControlError) -> PressGesture {
      guard index < arguments.count, let gesture = PressGesture(rawValue: arguments[index]) else {
        throw ControlError("\(verb): gesture must be one of single, double, hold, down, up")
      }
      return gesture
    }
    func number(_ index: Int, _ what: String) throws(ControlError) -> Int {
      guard index < arguments.count, let value = Int(arguments[index]) else {
        throw ControlError("\(verb): missing or invalid \(what)")
      }
      return value
    }
    func name(_ index: Int) throws(ControlError) -> String {
      guard index < arguments.count else { throw ControlError("\(verb): missing name") }
      return arguments[index...].joined(separator: " ")
    }

    switch verb {
    case "press": return .press(try address(0), try gesture(1))
    case "queued":
      let age = try number(2, "age in seconds")
      guard (0...Int(UInt32.max)).contains(age) else { throw ControlError("queued: age must be >= 0") }
      return .queued(try address(0), try gesture(1), ageSeconds: UInt32(age))
    case "disconnect": return .disconnect(try address(0))
    case "reconnect": return .reconnect(try address(0))
    case "battery":
      let percent = try number(1, "percentage")
      guard (-1...100).contains(percent) else { throw ControlError("battery: percentage must be -1...100") }
      return .battery(try address(0), Int8(percent))
    case "add-button": return .addButton(try address(0), name: try name(1))
    case "add-pending-button": return .addPendingButton(try address(0), name: try name(1), isPrivate: false)
    case "add-private-button": return .addPendingButton(try address(0), name: try name(1), isPrivate: true)
    case "make-public": return .makePublic(try address(0))
    case "wait-channel":
      let timeout = arguments.count > 1 ? Double(arguments[1]) : 30
      guard let timeout else { throw ControlError("wait-channel: timeout must be a number of seconds") }
      return .waitChannel(try address(0), timeoutSeconds: timeout)
    case "sleep":
      let ms = try number(0, "milliseconds")
      guard ms >= 0 else { throw ControlError("sleep: milliseconds must be >= 0") }
      return .sleep(milliseconds: ms)
    case "status": return .status
    case "quit", "exit": return .quit
    default: throw ControlError("unknown command '\(verb)'; \(usage)")
    }
  }
}

struct ControlError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
