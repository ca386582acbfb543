import FlicBLEBlueZ
import FlicBLEProtocol
import PatchbayPluginKit

/// Every configured button of one instance on one system-bus connection: follows BlueZ (the
/// bus, bluetoothd, the adapter), keeps discovery on with the Flic service filter while a paired
/// button is not linked, and hands each change to the buttons. Lives on the bus thread.
final class ButtonFleet {
  let client: BlueZClient
  let buttons: [ButtonConnection]
  let peer: (String) -> Void
  let log: (LogLevel, String) -> Void
  private var lastPeer: String?
  /// The adapter we asked to discover, so we stop only our own discovery.
  private var discoveringOn: String?
  private var discoveryCallPending = false

  init(
    client: BlueZClient, buttons: [ButtonConnection], peer: @escaping (String) -> Void,
    log: @escaping (LogLevel, String) -> Void
  ) {
    self.client = client
    self.buttons = buttons
    self.peer = peer
    self.log = log
  }

  func start() {
    client.start(
      .init(
        changed: { [unowned self] in self.changed() },
        value: { [unowned self] path, bytes in
          for button in self.buttons { button.received(path: path, bytes: bytes) }
        },
        log: { [unowned self] warning, message in self.log(warning ? .warning : .info, message) }))
    for button in buttons { button.start() }
  }

  func stop() {
    for button in buttons { button.stop() }
    if let adapter = discoveringOn {
      client.bus.call(BlueZNames.service, adapter, BlueZNames.adapter, "StopDiscovery") { _ in }
    }
  }

  private func changed() {
    let summary = client.summary
    if summary != lastPeer {
      lastPeer = summary
      peer(summary)
      if client.availability == .running, client.objects.adapters.isEmpty {
        log(.warning, "BlueZ has no Bluetooth adapter; waiting for one")
      }
    }
    if client.availability != .running { discoveringOn = nil }
    for button in buttons { button.update() }
    steerDiscovery()
  }

  /// Discovery finds buttons that advertise (after a press, or held for pairing); BlueZ then
  /// lists them and a connect can go out.
  private func steerDiscovery() {
    guard client.availability == .running, !discoveryCallPending else { return }
    let wanted = buttons.contains { $0.wantsDevice }
    let adapter = client.objects.adapters.first { client.objects.isPowered($0) }
    if let current = discoveringOn, client.objects.objects[current] == nil || !client.objects.isPowered(current) {
      discoveringOn = nil
    }
    if wanted, discoveringOn == nil, let adapter {
      discoveryCallPending = true
      client.bus.call(
        BlueZNames.service, adapter, BlueZNames.adapter, "SetDiscoveryFilter",
        [.options(["UUIDs": .strings(BlueZNames.allFlicServices), "Transport": .string("le")])]
      ) { [unowned self] _ in
        self.client.bus.call(BlueZNames.service, adapter, BlueZNames.adapter, "StartDiscovery") {
          [unowned self] result in
          self.discoveryCallPending = false
          switch result {
          case .success: self.discoveringOn = adapter
          case .failure(let error) where error.name == "org.bluez.Error.InProgress": self.discoveringOn = adapter
          case .failure(let error):
            self.log(.warning, "cannot start discovery on \(adapter): \(BlueZErrorText.explain(error))")
            self.client.bus.after(5) { [weak self] in self?.changed() }
          }
        }
      }
    } else if !wanted, let current = discoveringOn {
      discoveringOn = nil
      client.bus.call(BlueZNames.service, current, BlueZNames.adapter, "StopDiscovery") { _ in }
    }
  }
}
