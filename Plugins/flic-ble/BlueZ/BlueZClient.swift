/// BlueZ as seen over the system bus: whether the bus is reachable, whether bluetoothd owns
/// org.bluez, and its object tree. Reconnects to the bus with back-off when it breaks and reloads
/// the tree whenever org.bluez (re)appears. Everything runs on the bus thread.
public final class BlueZClient: Sendable {
  // All state is bus-thread state (`BusConfined`: checked on every access).

  public enum Availability: Sendable, Equatable {
    case noBus(String)
    case noBluetoothd
    case running
  }

  /// What the client reports, on the bus thread.
  public struct Events {
    /// Availability or the object tree changed.
    public var changed: () -> Void
    /// A characteristic's Value changed (a notification).
    public var value: (_ path: String, _ bytes: [UInt8]) -> Void
    public var log: (_ warning: Bool, _ message: String) -> Void

    public init(
      changed: @escaping () -> Void, value: @escaping (String, [UInt8]) -> Void,
      log: @escaping (Bool, String) -> Void
    ) {
      self.changed = changed
      self.value = value
      self.log = log
    }
  }

  /// What only the bus thread touches.
  private struct State {
    var availability = Availability.noBus("not connected yet")
    var objects = BlueZObjects()
    var events: Events?
    var busRetries = 0
    var loadGeneration = 0
  }

  public let bus: SystemBus
  private let state: BusConfined<State>

  public var availability: Availability { state.value.availability }
  public var objects: BlueZObjects { state.value.objects }
  private var events: Events? { state.value.events }

  public init(bus: SystemBus) {
    self.bus = bus
    state = BusConfined(State(), on: bus)
  }

  /// The state as one line for `patchbay status` (the PEER column).
  public var summary: String {
    switch availability {
    case .noBus: return "no system bus"
    case .noBluetoothd: return "bluetoothd not running"
    case .running:
      guard let adapter = objects.adapters.first else { return "no Bluetooth adapter" }
      let name = adapter.split(separator: "/").last.map(String.init) ?? adapter
      return objects.isPowered(adapter) ? "\(name) on" : "\(name) off"
    }
  }

  /// Connects (on the bus thread) and keeps at it.
  public func start(_ events: Events) {
    state.value.events = events
    bus.onLost = { [unowned self] reason in
      self.busLost(reason)
    }
    connect()
  }

  private func connect() {
    do {
      try bus.open()
      try subscribe()
      state.value.busRetries = 0
      state.value.availability = .noBluetoothd
      bus.call(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
        [.string(BlueZNames.service)]
      ) {
        [unowned self] result in
        if case .success(let values) = result, values.first?.bool == true {
          self.load()
        } else {
          self.events?.changed()
        }
      }
    } catch {
      busLost(error.description)
    }
  }

  private func busLost(_ reason: String) {
    bus.closeBus()
    state.value.busRetries += 1
    let delay = min(30, 0.5 * Double(1 << min(state.value.busRetries, 6)))
    let retries = state.value.busRetries
    if retries == 1 || retries % 20 == 0 {
      events?.log(true, "\(reason); retrying in \(delay) s")
    }
    state.value.availability = .noBus(reason)
    state.value.objects = BlueZObjects()
    events?.changed()
    bus.after(delay) { [unowned self] in self.connect() }
  }

  private func subscribe() throws(SystemBus.CallError) {
    try bus.subscribe(
      "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'"
    ) { [unowned self] signal in
      let owner = signal.arguments.count > 2 ? signal.arguments[2].string ?? "" : ""
      if owner.isEmpty {
        self.events?.log(true, "bluetoothd left the system bus (org.bluez has no owner)")
        self.state.value.availability = .noBluetoothd
        self.state.value.objects = BlueZObjects()
        self.state.value.loadGeneration += 1
        self.events?.changed()
      } else {
        self.events?.log(false, "bluetoothd is on the system bus")
        self.load()
      }
    }
    try bus.subscribe("type='signal',interface='\(BlueZNames.objectManager)',path='/'") { [unowned self] signal in
      guard self.availability == .running, let path = signal.arguments.first?.string else { return }
      if signal.member == "InterfacesAdded", signal.arguments.count > 1 {
        self.state.value.objects.add(path: path, interfaces: signal.arguments[1])
      } else if signal.member == "InterfacesRemoved", signal.arguments.count > 1 {
        self.state.value.objects.remove(path: path, interfaces: signal.arguments[1].strings ?? [])
      } else {
        return
      }
      self.events?.changed()
    }
    try bus.subscribe(
      "type='signal',interface='\(BlueZNames.properties)',member='PropertiesChanged',path_namespace='/org/bluez'"
    ) { [unowned self] signal in
      guard self.availability == .running, signal.arguments.count > 1, let interface = signal.arguments[0].string,
        let changed = signal.arguments[1].dictionary
      else { return }
      let invalidated = signal.arguments.count > 2 ? signal.arguments[2].strings ?? [] : []
      self.state.value.objects.change(
        path: signal.path, interface: interface, changed: changed, invalidated: invalidated)
      if interface == BlueZNames.characteristic, let value = changed["Value"]?.bytes {
        self.events?.value(signal.path, value)
      }
      if changed.keys.contains(where: { $0 != "Value" && $0 != "RSSI" }) || !invalidated.isEmpty {
        self.events?.changed()
      }
    }
  }

  /// Reads the whole tree (at start and whenever bluetoothd appears).
  private func load() {
    state.value.loadGeneration += 1
    let generation = state.value.loadGeneration
    bus.call(BlueZNames.service, "/", BlueZNames.objectManager, "GetManagedObjects") { [unowned self] result in
      guard generation == self.state.value.loadGeneration else { return }
      switch result {
      case .success(let values):
        self.state.value.objects = BlueZObjects(managed: values.first)
        self.state.value.availability = .running
      case .failure(let error):
        self.events?.log(true, "cannot read BlueZ's objects: \(BlueZErrorText.explain(error))")
        self.state.value.availability = .noBluetoothd
      }
      self.events?.changed()
    }
  }
}
