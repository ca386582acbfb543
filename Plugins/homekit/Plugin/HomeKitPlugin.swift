import HAP
import HAPDiscovery
import HomeKitProtocol
import Logging
import NIOCore
import NIOPosix
import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// homekit: this instance is a HomeKit bridge (HAP over IP) whose bridged accessories are hub
/// ports. See docs/plugins/homekit.md. Output `pairing` (state, text, shown in `patchbay
/// status`) says whether a controller is paired and, while none is, the setup code; `discovery`
/// (the PEER column) whether mDNS advertises it; `setup_payload` and `pairings` are what the
/// dashboard's HomeKit panel draws: the QR code's text while unpaired, the paired controllers.
final class HomeKitPlugin: PatchbayPlugin {
  let context: PluginContext
  let config: HomeKitConfig
  let accessories: [AccessoryPorts]
  let pairingStatus: OutputPort
  let discovery: OutputPort
  let setupPayload: OutputPort
  let pairingList: OutputPort
  private var outputs: [String: OutputPort] = [:]
  private var inputNames: [UInt32: String] = [:]
  private var running: Running?

  /// What runs between start and stop.
  private struct Running {
    var bridge: BridgeAccessories
    var server: HAPServer
    var eventLoops: MultiThreadedEventLoopGroup
    var advertiser: Advertisement
    var writtenValues: WrittenValuesKeeper
  }

  init(context: PluginContext) throws {
    self.context = context
    config = try context.config(HomeKitConfig.self)
    accessories = config.accessories.map(AccessoryPorts.init)
    pairingStatus = try context.addOutput(
      "pairing", .text, kind: .state, description: "paired (with how many controllers), or the setup code to pair",
      shownInStatus: .shown)
    discovery = try context.addOutput(
      "discovery", .text, kind: .state,
      description: "how Home finds the bridge: advertised over mDNS (paired or not), or why it is not",
      shownInStatus: .peer)
    setupPayload = try context.addOutput(
      "setup_payload", .text, kind: .state,
      description: "the setup QR code's text (X-HM://...) while unpaired; empty once paired")
    pairingList = try context.addOutput(
      "pairings", .text, kind: .state,
      description: #"the paired controllers as JSON: [{"id": "...", "admin": true}]"#)
    var inputsByName: [String: InputPort] = [:]
    for port in accessories.flatMap(\.ports) {
      if port.isOutput {
        outputs[port.name] = try context.addOutput(
          port.name, port.type, kind: port.kind, description: port.description,
          mirroring: port.mirrors.flatMap { inputsByName[$0] })
      } else {
        let input = try context.addInput(port.name, port.type, kind: port.kind, description: port.description)
        inputsByName[port.name] = input
        inputNames[input.index] = port.name
      }
    }
  }

  var bridgeName: String { config.name ?? context.instanceName }

  func start() throws {
    let store = BridgeIdentityStore(directory: context.stateDirectory)
    var identity = try store.loadOrCreateIdentity()
    let pairings = try store.loadPairings()
    var identifiers = try store.loadIdentifiers()
    let database = AccessoryDatabase(
      bridgeName: bridgeName, accessories: config.accessories,
      serialNumber: identity.deviceID.replacing(":", with: ""), identifiers: &identifiers)
    if identifiers.record(databaseDigest: database.digest) {
      context.log(.info, "the accessory database changed: config number (c#) \(identifiers.configNumber)")
    }
    try store.save(identifiers)

    let context = self.context
    let outputs = self.outputs
    let status = pairingStatus
    let (payloadPort, listPort) = (setupPayload, pairingList)
    let setupCode = config.setupCode ?? HAPSetupCode(identity.setupCode)!
    if setupCode.description != identity.setupCode {
      // The config's code is the one in force: `patchbay homekit setup` shows what is stored.
      identity.setupCode = setupCode.description
      try store.save(identity)
    }
    let setupURI = hapSetupURI(code: setupCode, setupID: identity.setupID, category: .bridge)
    let discoveryPort = discovery
    let advertisement = Advertisement { context.publish(.text($0), on: discoveryPort) }
    let writtenValues = WrittenValuesKeeper { values in
      do { try store.saveWrittenValues(values) } catch {
        context.log(.warning, "cannot keep HomeKit's writes: \(error)")
      }
    }
    let bridge = BridgeAccessories(
      database: database, accessories: config.accessories,
      publish: { value, name in
        if let port = outputs[name] { context.publish(value, on: port) }
      },
      log: { context.log(.info, $0) },
      pairingsChanged: { state in
        try store.save(state)
        context.publish(.text(Self.pairingText(state, setupCode: setupCode)), on: status)
        Self.publishDashboard(state, setupURI: setupURI, context: context, payload: payloadPort, list: listPort)
        advertisement.pairingChanged(isPaired: state.isPaired)
      },
      restoring: store.loadWrittenValues(),
      writesChanged: { values in writtenValues.keep(values) })
    let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    var logger = Logger(label: "homekit")
    logger.logLevel = .info
    let accessoryIdentity = try BridgeIdentityStore.accessoryIdentity(identity)
    func listen(on port: Int) throws -> (HAPServer, Int) {
      let server = HAPServer(
        configuration: HAPServerConfiguration(
          identity: accessoryIdentity, setupCode: setupCode, pairingState: pairings, host: "::", port: port),
        delegate: bridge, group: eventLoops, logger: logger)
      return (server, try AsyncBridge.wait { try await server.start() })
    }
    let server: HAPServer
    let port: Int
    do {
      do {
        (server, port) = try listen(on: config.port ?? identity.port ?? 0)
      } catch  where config.port == nil && identity.port != nil {
        // The kept port is taken (or, under the sandbox, not granted): any port; Home finds the
        // bridge again by mDNS. Set `port` to have one that never changes.
        context.log(.warning, "cannot listen on the kept port \(identity.port ?? 0) (\(error)); taking another")
        (server, port) = try listen(on: 0)
      }
    } catch {
      try? eventLoops.syncShutdownGracefully()
      throw PluginError(.unavailable, "cannot listen on port \(config.port ?? identity.port ?? 0): \(error)")
    }
    bridge.connect(server)
    running = Running(
      bridge: bridge, server: server, eventLoops: eventLoops, advertiser: advertisement, writtenValues: writtenValues)
    context.publish(.text(Self.pairingText(pairings, setupCode: setupCode)), on: status)
    Self.publishDashboard(pairings, setupURI: setupURI, context: context, payload: payloadPort, list: listPort)
    if config.port == nil, identity.port != port {
      // Chosen once and kept: Home looks for the bridge where it was.
      identity.port = port
      try store.save(identity)
    }
    // Home finds the bridge by mDNS: `_hap._tcp` through avahi-daemon (without one, the
    // advertiser says so in the log and registers once it appears; connections work meanwhile).
    advertisement.start(
      name: bridgeName, port: port,
      txt: HAPTXTRecord(
        configurationNumber: identifiers.configNumber, deviceID: identity.deviceID, model: "patchbay",
        discoverable: !pairings.isPaired, category: HAPCategory.bridge.rawValue,
        setupHash: hapSetupHash(setupID: identity.setupID, deviceID: identity.deviceID)),
      logger: logger)
    context.log(
      .info,
      "HomeKit bridge '\(bridgeName)' (\(identity.deviceID)) on port \(port), \(config.accessories.count) accessories, "
        + "c# \(identifiers.configNumber), "
        + (pairings.isPaired ? "paired with \(pairings.pairings.count) controllers" : "not paired yet"))
  }

  static func pairingText(_ state: HAPPairingState, setupCode: HAPSetupCode) -> String {
    state.isPaired
      ? "paired with \(state.pairings.count) controller\(state.pairings.count == 1 ? "" : "s")"
      : "not paired: setup code \(setupCode)"
  }

  /// The dashboard's panel: the QR code's text only while a controller may pair (as HAP-python
  /// and Home Assistant show it), and who is paired.
  static func publishDashboard(
    _ state: HAPPairingState, setupURI: String, context: PluginContext, payload: OutputPort, list: OutputPort
  ) {
    context.publish(.text(state.isPaired ? "" : setupURI), on: payload)
    context.publish(.text(pairingsJSON(state)), on: list)
  }

  /// `[{"admin":true,"id":"..."}]`, in the order the controllers paired.
  static func pairingsJSON(_ state: HAPPairingState) -> String {
    struct Entry: Encodable {
      var id: String
      var admin: Bool
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data =
      (try? encoder.encode(state.pairings.map { Entry(id: $0.identifier, admin: $0.isAdmin) })) ?? Data("[]".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  func receive(_ value: Value, on port: InputPort) throws {
    guard let name = inputNames[port.index], let bridge = running?.bridge else { return }
    bridge.receive(value, onInput: name)
  }

  func stop() {
    guard let running else { return }
    self.running = nil
    running.bridge.connect(nil)
    running.advertiser.stop()
    AsyncBridge.wait { await running.server.stop() }
    try? running.eventLoops.syncShutdownGracefully()
    // No more writes can come: the last ones are on disk before the process goes.
    running.writtenValues.flush()
  }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target (kept apart so
/// tests can link this module without a second copy of the entry symbol).
public func describeHomeKitPlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: HomeKitPlugin.self, name: "homekit", version: PatchbayVersion.current,
    description: "a HomeKit bridge (HAP over IP): Apple Home sees the hub's ports as accessories")
}
