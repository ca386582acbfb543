import Crypto
import FlicBLEProtocol
import FlicBLESimulator

/// A central and a simulated button joined in memory: every write goes to the button and every
/// notification back to the central until both are quiet.
struct InMemoryLink {
  var central: FlicBLECentral
  var button: SimulatedFlicButton
  var events: [CentralEvent] = []

  static let factoryKey = SimulatedFlicButton.testFactoryKey()
  static let trusted = TrustedFactoryKeys(testOnlyKeys: [Array(factoryKey.publicKey.rawRepresentation)])

  static func options(mtu: Int = 140) -> FlicBLECentral.Options {
    FlicBLECentral.Options(mtu: mtu, trustedKeys: trusted, expectedAddress: SimulatedFlicButton.Identity().address)
  }

  /// Connects and runs the central's opening until nothing more is sent.
  init(button: SimulatedFlicButton, stored: StoredButton?, options: FlicBLECentral.Options = InMemoryLink.options()) {
    self.button = button
    self.button.connect()
    central = FlicBLECentral(stored: stored, options: options)
    deliver(writes: central.start())
  }

  mutating func deliver(writes: [[UInt8]]) {
    var toButton = writes
    while !toButton.isEmpty {
      let write = toButton.removeFirst()
      deliver(notifications: button.receive(write), into: &toButton)
    }
  }

  mutating func deliver(notifications: [[UInt8]]) {
    var toButton: [[UInt8]] = []
    deliver(notifications: notifications, into: &toButton)
    deliver(writes: toButton)
  }

  private mutating func deliver(notifications: [[UInt8]], into toButton: inout [[UInt8]]) {
    for notification in notifications {
      let step = central.receive(notification)
      events += step.events
      toButton += step.writes
    }
  }

  mutating func press(_ gesture: PressGesture, buttonIndex: Int = 0) {
    deliver(notifications: button.press(gesture, buttonIndex: buttonIndex))
  }

  mutating func request(_ message: ToButtonMessage) throws { deliver(writes: try central.request(message)) }

  /// Takes the events seen so far.
  mutating func drain() -> [CentralEvent] {
    defer { events = [] }
    return events
  }

  var presses: [ButtonPress] {
    events.compactMap { if case .button(let press) = $0 { press } else { nil } }
  }

  var swipes: [DuoSwipe] {
    events.compactMap { if case .swipe(let swipe) = $0 { swipe } else { nil } }
  }
}

extension SimulatedFlicButton {
  static func seeded(_ seed: UInt8 = 1, model: Model = .flic2) -> SimulatedFlicButton {
    SimulatedFlicButton(identity: Identity(model: model), factoryKey: InMemoryLink.factoryKey, random: .counting(seed))
  }
}

extension RandomBytes {
  /// Reproducible bytes for tests (not random at all).
  static func counting(_ seed: UInt8) -> RandomBytes {
    let state = Counter(seed)
    return RandomBytes { count in state.next(count) }
  }
}

private final class Counter: @unchecked Sendable {
  // Tests only: each RandomBytes is used from one test at a time.
  private var value: UInt8
  init(_ seed: UInt8) { value = seed }
  func next(_ count: Int) -> [UInt8] {
    (0..<count).map { _ in
      value = value &* 29 &+ 17
      return value
    }
  }
}
