import FlicBLEProtocol

/// One connection to one Flic button through BlueZ: Device1.Connect, wait for the Flic GATT
/// characteristics, StartNotify, then bytes between BlueZ and a `FlicBLECentral` (notifications
/// arrive as PropertiesChanged of Value; writes go out one at a time with WriteValue). It ends on
/// a disconnect, a vanished device or characteristic, a failed call, or a failed session; the
/// owner then decides about a retry. Runs on the bus thread: `update()` after every change of the
/// object tree, `received` for every Value.
public final class FlicGATTLink {
  public enum Phase: Equatable {
    case connecting, waitingForServices, enablingNotifications, running, ended
  }

  public struct Events {
    public var central: (CentralEvent) -> Void
    /// The link ended; `reason` says why for the log. Called once.
    public var ended: (_ reason: String, _ blueZError: SystemBus.CallError?) -> Void

    public init(
      central: @escaping (CentralEvent) -> Void, ended: @escaping (String, SystemBus.CallError?) -> Void
    ) {
      self.central = central
      self.ended = ended
    }
  }

  public let client: BlueZClient
  public let device: String
  public private(set) var phase = Phase.connecting
  public private(set) var central: FlicBLECentral?
  private let makeCentral: (_ mtu: Int) -> FlicBLECentral
  /// The GATT characteristics: the Twist's own, or Flic 2's (also the Duo's).
  private let writeUUID: String
  private let notifyUUID: String
  private let events: Events
  private var writeCharacteristic: String?
  private var notifyCharacteristic: String?
  private var outgoing: [[UInt8]] = []
  private var writing = false
  private var wasConnected = false

  public init(
    client: BlueZClient, device: String, twist: Bool = false, makeCentral: @escaping (Int) -> FlicBLECentral,
    events: Events
  ) {
    writeUUID = twist ? BlueZNames.twistWrite : BlueZNames.flicWrite
    notifyUUID = twist ? BlueZNames.twistNotify : BlueZNames.flicNotify
    self.client = client
    self.device = device
    self.makeCentral = makeCentral
    self.events = events
  }

  public func start() {
    // Connected already: a link left by an earlier process of ours (killed before its Disconnect)
    // or another program. The button still runs that session; a clean radio link starts afresh.
    if client.objects.property(device, BlueZNames.device, "Connected")?.bool == true {
      client.bus.call(BlueZNames.service, device, BlueZNames.device, "Disconnect") { [weak self] _ in
        guard let self, self.phase == .connecting else { return }
        self.connect()
      }
      return
    }
    connect()
  }

  private func connect() {
    client.bus.call(BlueZNames.service, device, BlueZNames.device, "Connect", timeoutSeconds: 30) {
      [weak self] result in
      guard let self, self.phase == .connecting else { return }
      if case .failure(let error) = result, error.name != "org.bluez.Error.AlreadyConnected" {
        self.end("cannot connect: \(BlueZErrorText.explain(error))", error)
        return
      }
      self.phase = .waitingForServices
      self.update()
    }
  }

  /// Ends the link and asks BlueZ to disconnect the device.
  public func close() {
    guard phase != .ended else { return }
    phase = .ended
    client.bus.call(BlueZNames.service, device, BlueZNames.device, "Disconnect") { _ in }
  }

  /// After a change of BlueZ's objects.
  public func update() {
    guard phase != .ended else { return }
    let objects = client.objects
    guard client.availability == .running, objects.objects[device]?[BlueZNames.device] != nil else {
      end(client.availability == .running ? "the device vanished from BlueZ" : "BlueZ went away", nil)
      return
    }
    let connected = objects.property(device, BlueZNames.device, "Connected")?.bool ?? false
    if connected && phase != .connecting { wasConnected = true }
    if !connected && (wasConnected || phase == .running || phase == .enablingNotifications) {
      end("the button disconnected", nil)
      return
    }
    guard phase == .waitingForServices, connected else {
      if phase == .running || phase == .enablingNotifications,
        objects.characteristic(below: device, uuid: notifyUUID) == nil
      {
        end("the Flic GATT service vanished", nil)
      }
      return
    }
    guard let write = objects.characteristic(below: device, uuid: writeUUID),
      let notify = objects.characteristic(below: device, uuid: notifyUUID)
    else { return }  // ServicesResolved comes later
    writeCharacteristic = write
    notifyCharacteristic = notify
    phase = .enablingNotifications
    // BlueZ's MTU property is the ATT MTU; a write carries 3 bytes less. Flic packets stop at 140.
    let attMTU = objects.property(write, BlueZNames.characteristic, "MTU")?.int ?? 23
    let mtu = max(20, min(140, attMTU - 3))
    client.bus.call(BlueZNames.service, notify, BlueZNames.characteristic, "StartNotify") { [weak self] result in
      guard let self, self.phase == .enablingNotifications else { return }
      if case .failure(let error) = result, error.name != "org.bluez.Error.InProgress" {
        self.end("cannot enable notifications: \(BlueZErrorText.explain(error))", error)
        return
      }
      self.phase = .running
      var central = self.makeCentral(mtu)
      let writes = central.start()
      self.central = central
      self.send(writes)
    }
  }

  /// A Value notification of some characteristic.
  public func received(path: String, bytes: [UInt8]) {
    guard phase == .running, path == notifyCharacteristic, var central else { return }
    let step = central.receive(bytes)
    self.central = central
    send(step.writes)
    for event in step.events {
      guard phase == .running else { return }
      events.central(event)
    }
  }

  /// Sends a request of the plugin (battery, name) when the session is up.
  public func request(_ message: ToButtonMessage) {
    guard phase == .running, var central, let writes = try? central.request(message) else { return }
    self.central = central
    send(writes)
  }

  /// Without response ("command") where the characteristic offers it (fewer round trips), else
  /// a write request: BlueZ refuses a type the characteristic's Flags do not list.
  private var writeType: String {
    guard let write = writeCharacteristic,
      let flags = client.objects.property(write, BlueZNames.characteristic, "Flags")?.strings
    else { return "command" }
    return flags.contains("write-without-response") ? "command" : "request"
  }

  private func send(_ writes: [[UInt8]]) {
    outgoing += writes
    pump()
  }

  private func pump() {
    guard !writing, phase == .running, let write = writeCharacteristic, !outgoing.isEmpty else { return }
    writing = true
    let bytes = outgoing.removeFirst()
    client.bus.call(
      BlueZNames.service, write, BlueZNames.characteristic, "WriteValue",
      [.bytes(bytes), .options(["type": .string(writeType)])]
    ) { [weak self] result in
      guard let self else { return }
      self.writing = false
      if case .failure(let error) = result {
        self.end("a write failed: \(BlueZErrorText.explain(error))", error)
        return
      }
      self.pump()
    }
  }

  private func end(_ reason: String, _ error: SystemBus.CallError?) {
    guard phase != .ended else { return }
    let mustDisconnect = phase != .connecting
    phase = .ended
    outgoing = []
    if mustDisconnect, client.objects.property(device, BlueZNames.device, "Connected")?.bool == true {
      client.bus.call(BlueZNames.service, device, BlueZNames.device, "Disconnect") { _ in }
    }
    events.ended(reason, error)
  }
}
