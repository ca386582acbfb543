import ArgumentParser
import FlicBLEBlueZ
import FlicBLEProtocol
import Foundation
import Synchronization

/// The tool's BlueZ: a bus thread with a BlueZClient, and the main thread waiting for outcomes.
final class BlueZToolSession: Sendable {
  let bus: SystemBus
  let client: BlueZClient
  let adapter: String
  let router: LinkRouter

  var adapterName: String { adapter.split(separator: "/").last.map(String.init) ?? adapter }

  private init(bus: SystemBus, client: BlueZClient, adapter: String, router: LinkRouter) {
    self.bus = bus
    self.client = client
    self.adapter = adapter
    self.router = router
  }

  /// Connects and waits for BlueZ; refuses with what is wrong (no bus, no bluetoothd, no adapter, adapter off).
  static func open() throws -> BlueZToolSession {
    let bus = SystemBus()
    let client = BlueZClient(bus: bus)
    let outcome = Outcome<Result<String, ToolFailure>>()
    let router = LinkRouter(nil, on: bus)
    bus.start {
      var settled = false
      client.start(
        .init(
          changed: {
            guard !settled else { return }
            switch client.availability {
            case .noBus(let reason):
              settled = true
              outcome.set(.failure(ToolFailure("no system bus: \(reason)")))
            case .noBluetoothd:
              // NameHasOwner answered, or bluetoothd left: wait a moment in case it is starting.
              bus.after(3) {
                guard !settled, client.availability == .noBluetoothd else { return }
                settled = true
                outcome.set(
                  .failure(
                    ToolFailure(
                      "BlueZ is not running (nobody owns org.bluez on \(SystemBus.address)): "
                        + "systemctl start bluetooth")))
              }
            case .running:
              settled = true
              guard let adapter = client.objects.adapters.first else {
                outcome.set(.failure(ToolFailure("BlueZ has no Bluetooth adapter (is one plugged in? rfkill?)")))
                return
              }
              guard client.objects.isPowered(adapter) else {
                outcome.set(
                  .failure(
                    ToolFailure(
                      "the Bluetooth adapter \(adapter.split(separator: "/").last ?? "") is off: bluetoothctl power on")
                  ))
                return
              }
              outcome.set(.success(adapter))
            }
          }, value: { path, bytes in router.value?.received(path: path, bytes: bytes) },
          log: { _, _ in }))
    }
    switch outcome.wait(seconds: 30) {
    case .success(let adapter)?: return BlueZToolSession(bus: bus, client: client, adapter: adapter, router: router)
    case .failure(let failure)?:
      bus.stop()
      throw fail(failure.description)
    case nil:
      bus.stop()
      throw fail("BlueZ did not answer within 30 s on \(SystemBus.address)")
    }
  }

  func close() { bus.stop() }

  /// Buttons advertising the Flic service during `seconds` of discovery (counted from when BlueZ
  /// has started it).
  func scan(seconds: Double) throws -> [String] {
    let outcome = Outcome<Result<[String], ToolFailure>>()
    let client = self.client
    let adapter = self.adapter
    bus.perform { [bus] in
      startDiscovery(bus: bus, adapter: adapter) { error in
        if let error, error.name != "org.bluez.Error.InProgress" {
          outcome.set(.failure(ToolFailure("cannot scan: \(BlueZErrorText.explain(error))")))
          return
        }
        bus.after(seconds) {
          let objects = client.objects
          outcome.set(
            .success(
              BlueZNames.allFlicServices.flatMap { objects.devices(advertising: $0) }.map { path in
                let address = objects.property(path, BlueZNames.device, "Address")?.string ?? "?"
                let rssi = objects.property(path, BlueZNames.device, "RSSI")?.int.map { "  RSSI \($0)" } ?? ""
                let twist = objects.devices(advertising: BlueZNames.twistService).contains(path) ? "  (Flic Twist)" : ""
                return "\(address)  \(objects.property(path, BlueZNames.device, "Name")?.string ?? "")\(rssi)\(twist)"
              }))
          bus.call(BlueZNames.service, adapter, BlueZNames.adapter, "StopDiscovery") { _ in }
        }
      }
    }
    switch outcome.wait(seconds: seconds + 60) {
    case .success(let found)?: return found
    case .failure(let failure)?: throw fail(failure.description)
    case nil: throw fail("BlueZ did not answer the scan in time")
    }
  }

  /// Finds the button, connects, runs full verify; returns what to store.
  func pair(address: BluetoothAddressText, trustedKeys: TrustedFactoryKeys, seconds: Double) throws -> StoredButton {
    let outcome = Outcome<Result<StoredButton, ToolFailure>>()
    let client = self.client
    let adapter = self.adapter
    let router = self.router
    bus.perform {
      PairingRun(
        client: client, adapter: adapter, address: address, keys: trustedKeys, router: router, outcome: outcome
      ).begin(seconds: seconds)
    }
    switch outcome.wait(seconds: seconds + 60) {
    case .success(let stored)?: return stored
    case .failure(let failure)?: throw fail(failure.description)
    case nil: throw fail("no answer from BlueZ")
    }
  }
}

/// One pairing attempt on the bus thread.
final class PairingRun {
  let client: BlueZClient
  let adapter: String
  let address: BluetoothAddressText
  let keys: TrustedFactoryKeys
  let router: LinkRouter
  let outcome: Outcome<Result<StoredButton, ToolFailure>>
  var link: FlicGATTLink? {
    didSet { router.value = link }
  }
  var paired: StoredButton?
  var done = false
  var retries = 0
  var seen = false

  init(
    client: BlueZClient, adapter: String, address: BluetoothAddressText, keys: TrustedFactoryKeys,
    router: LinkRouter, outcome: Outcome<Result<StoredButton, ToolFailure>>
  ) {
    self.router = router
    self.client = client
    self.adapter = adapter
    self.address = address
    self.keys = keys
    self.outcome = outcome
  }

  func begin(seconds: Double) {
    startDiscovery(bus: client.bus, adapter: adapter) { _ in }
    client.bus.after(seconds) { [self] in
      finish(
        .failure(
          ToolFailure(
            seen
              ? "\(address) was found but did not complete pairing within \(Int(seconds)) s"
              : "\(address) was not found within \(Int(seconds)) s: is it near, and held 7 s?")))
    }
    poll()
  }

  /// Looks for the device twice a second (the tool's client reports changes to nobody else).
  private func poll() {
    guard !done else { return }
    if link == nil, let device = client.objects.device(address: address.description) {
      seen = true
      connect(device)
    } else {
      link?.update()
    }
    client.bus.after(0.5) { [self] in poll() }
  }

  private func connect(_ device: String) {
    let keys = self.keys
    let expected = address.littleEndian
    // A Twist advertises its own service; it pairs over its own characteristics and opcodes.
    let twist = client.objects.devices(advertising: BlueZNames.twistService).contains(device)
    let link = FlicGATTLink(
      client: client, device: device, twist: twist,
      makeCentral: { mtu in
        FlicBLECentral(
          stored: nil,
          options: .init(
            mtu: mtu, trustedKeys: keys, expectedAddress: expected, twist: twist ? .init() : nil))
      },
      events: .init(
        central: { [self] event in handle(event) },
        ended: { [self] reason, error in
          guard !done else { return }
          self.link = nil
          retries += 1
          say("the link to \(address) ended: \(reason)\(retries < 3 ? "; trying again" : "")")
          if retries >= 3 { finish(.failure(ToolFailure("cannot pair with \(address): \(reason)"))) }
        }))
    self.link = link
    link.start()
  }

  private func handle(_ event: CentralEvent) {
    switch event {
    case .paired(let button): paired = button
    case .cursor(let cursor): paired?.cursor = cursor
    case .eventsStarted:
      if let paired { finish(.success(paired)) }
    case .failed(let failure):
      let text: String
      switch failure {
      case .notInPublicMode:
        text = "\(address) is not in pairing mode (paired elsewhere?): hold it 7 s until it flashes, then try again"
      case .notGenuine: text = "\(address) is not a genuine Flic (its factory signature does not verify)"
      case .noConnectionSlots: text = "\(address) has no free connection slot: too many hubs and phones are paired"
      default: text = "pairing with \(address) failed: \(failure)"
      }
      finish(.failure(ToolFailure(text)))
    default: break
    }
  }

  private func finish(_ result: Result<StoredButton, ToolFailure>) {
    guard !done else { return }
    done = true
    link?.close()
    client.bus.call(BlueZNames.service, adapter, BlueZNames.adapter, "StopDiscovery") { _ in }
    outcome.set(result)
  }
}

/// SetDiscoveryFilter (the Flic service, LE) then StartDiscovery.
func startDiscovery(bus: SystemBus, adapter: String, done: @escaping (SystemBus.CallError?) -> Void) {
  bus.call(
    BlueZNames.service, adapter, BlueZNames.adapter, "SetDiscoveryFilter",
    [.options(["UUIDs": .strings(BlueZNames.allFlicServices), "Transport": .string("le")])]
  ) { _ in
    bus.call(BlueZNames.service, adapter, BlueZNames.adapter, "StartDiscovery") { result in
      if case .failure(let error) = result { done(error) } else { done(nil) }
    }
  }
}

/// A value set once on the bus thread, waited for on the main thread.
final class Outcome<Value: Sendable>: Sendable {
  private let value = Mutex<Value?>(nil)
  private let semaphore = DispatchSemaphore(value: 0)

  func set(_ result: Value) {
    let first = value.withLock { current -> Bool in
      guard current == nil else { return false }
      current = result
      return true
    }
    if first { semaphore.signal() }
  }

  func wait(seconds: Double) -> Value? {
    _ = semaphore.wait(timeout: .now() + seconds)
    return value.withLock { $0 }
  }
}

/// The link that gets the characteristic values the client reports (the bus thread's only).
typealias LinkRouter = BusConfined<FlicGATTLink?>
