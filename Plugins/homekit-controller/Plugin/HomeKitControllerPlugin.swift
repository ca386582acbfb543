import Dispatch
import HAP
import HomeKitControllerProtocol
import Logging
import NIOPosix
import PatchbayPluginKit
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// homekit-controller: this instance is paired, as a HomeKit controller, with one accessory
/// server (a device or a bridge) and makes its services ports. See
/// docs/plugins/homekit-controller.md. The ports come from the accessory database cached at
/// pairing (and refreshed on every connect), so they are known before the accessory answers.
final class HomeKitControllerPlugin: PatchbayPlugin {
  let context: PluginContext
  let config: ControllerConfig
  let store: ControllerPairingStore
  let pairing: ControllerPairingStore.Pairing?
  let services: [ServicePorts]
  let connected: OutputPort
  private let pending = PendingWrites()
  private let outputs: AccessoryOutputs
  /// Input port index → service index.
  private var inputs: [UInt32: Int] = [:]
  private var running: (task: Task<Void, Never>, group: MultiThreadedEventLoopGroup, locator: AccessoryLocator)?

  init(context: PluginContext) throws {
    self.context = context
    config = try context.config(ControllerConfig.self)
    store = ControllerPairingStore(directory: context.stateDirectory)
    pairing = try store.loadPairing()
    connected = try context.addOutput(
      "connected", .bool, kind: .state, description: "true while the accessory is connected and verified",
      shownInStatus: .peer)
    let found = pairing == nil ? [] : ServiceLayout.services(in: store.loadAccessories() ?? .object([]))
    services = try Self.renamed(found, by: config, log: context)
    if pairing == nil {
      // At create, so `patchbay check` shows it too.
      context.log(
        .warning,
        "not paired yet: find the accessory with 'patchbay homekit-controller discover', then "
          + "'patchbay homekit-controller pair \(context.instanceName) --device ID --code XXX-XX-XXX', and restart "
          + "the instance")
    }
    var outputs: [Int: OutputPort] = [:]
    var readings: [Int: [String: OutputPort]] = [:]
    for (index, service) in services.enumerated() {
      let name = service.name
      switch service.kind {
      case .light:
        let input = try context.addInput(
          "\(name).light", .light, kind: .state, description: "a light command for \(name)")
        inputs[input.index] = index
        outputs[index] = try context.addOutput(
          "\(name).state", .light, kind: .state, description: "the light's state as the accessory reports it",
          mirroring: input)
      case .outlet, .switch:
        let input = try context.addInput("\(name).on", .bool, kind: .state, description: "switch \(name) on or off")
        inputs[input.index] = index
        outputs[index] = try context.addOutput(
          "\(name).state", .bool, kind: .state, description: "on as the accessory reports it", mirroring: input)
      case .contact:
        outputs[index] = try context.addOutput(
          "\(name).open", .bool, kind: .state, description: "true while the contact sensor is open")
      case .motion:
        outputs[index] = try context.addOutput(
          "\(name).motion", .bool, kind: .state, description: "true while motion is detected")
      case .temperature:
        outputs[index] = try context.addOutput(
          "\(name).temperature", .number, kind: .state, description: "current temperature, °C")
      case .humidity:
        outputs[index] = try context.addOutput(
          "\(name).humidity", .number, kind: .state, description: "relative humidity, %")
      case .button:
        outputs[index] = try context.addOutput(
          "\(name).button", .button, kind: .event, description: "presses: click, double_click, hold")
      case .battery:
        outputs[index] = try context.addOutput(
          "\(name).battery", .integer, kind: .state, description: "battery level, %")
      case .other:
        for reading in service.readings {
          readings[index, default: [:]][reading.type] = try context.addOutput(
            "\(name).\(reading.name)", reading.valueType, kind: .state,
            description: "HAP characteristic \(reading.type) as the accessory reports it"
              + (reading.events ? "" : " (read on connect: it sends no events)"))
        }
      }
    }
    self.outputs = AccessoryOutputs(context: context, services: services, outputs: outputs, readings: readings)
  }

  func start() throws {
    context.publish(.bool(false), on: connected)
    guard let pairing else { return }
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let controller = HAPController(
      identity: try pairing.identity(), group: group, requestTimeout: .seconds(Int64(config.requestTimeout)))
    let context = self.context
    let connected = self.connected
    let outputs = self.outputs
    let store = self.store
    var logger = Logger(label: "homekit-controller")
    logger.logLevel = .info
    let locator = AccessoryLocator(
      deviceID: pairing.accessoryID, stored: .init(host: pairing.host, port: pairing.port), logger: logger)
    locator.start { [name = pairing.name, accessoryID = pairing.accessoryID] location in
      context.log(.info, "mDNS: \(name) (\(accessoryID)) is at \(location)")
      do { try store.moved(to: location.host, port: location.port) } catch {
        context.log(.warning, "cannot keep the accessory's new address: \(error)")
      }
    }
    let link = AccessoryLink(
      controller: controller, accessory: try pairing.accessory(), locator: locator,
      name: pairing.name, instance: context.instanceName, pending: pending,
      follows: { outputs.followed },
      callbacks: .init(
        value: { outputs.changed($0) },
        connected: { context.publish(.bool($0), on: connected) },
        log: { context.log($0 ? .warning : .info, $1) },
        database: { [config] database in
          let fresh = (try? Self.renamed(ServiceLayout.services(in: database), by: config, log: nil)) ?? []
          if !outputs.databaseRead(fresh) {
            context.log(
              .warning,
              "the accessory's services changed (now: \(fresh.map(\.name).joined(separator: ", "))): restart the "
                + "instance to get their ports")
          }
          do { try store.saveAccessories(database) } catch {
            context.log(.warning, "cannot keep the accessory database: \(error)")
          }
        }))
    running = (Task { await link.run() }, group, locator)
    context.log(
      .info,
      "following \(pairing.name) (\(pairing.accessoryID)) at \(pairing.host):\(pairing.port): "
        + "\(services.count) services as ports")
  }

  /// The services with the names `rename` gives them. A name given twice is a config mistake;
  /// a name to rename that the accessory does not have is logged (it may come back).
  static func renamed(_ services: [ServicePorts], by config: ControllerConfig, log: PluginContext?) throws
    -> [ServicePorts]
  {
    let names = services.map(\.name)
    let unknown = config.rename.keys.filter { !names.contains($0) }.sorted()
    if let log, !unknown.isEmpty, !services.isEmpty {
      log.log(
        .warning,
        "rename: the accessory has no service named \(unknown.joined(separator: ", ")) (it has: "
          + "\(names.joined(separator: ", ")))")
    }
    var renamed = services
    for index in renamed.indices { renamed[index].name = config.rename[renamed[index].name] ?? renamed[index].name }
    var seen: [String: String] = [:]
    for (service, original) in zip(renamed, names) {
      if let other = seen[service.name] {
        // One of the two kept its own name; the other was renamed onto it.
        let (moved, kept) = original == service.name ? (other, original) : (original, other)
        throw PluginError.config("rename.\(moved) = '\(service.name)' is the name of \(kept) already: choose another")
      }
      seen[service.name] = original
    }
    return renamed
  }

  func receive(_ value: Value, on port: InputPort) throws {
    guard let index = inputs[port.index] else { return }
    let writes = ServiceValues.writes(value, to: services[index])
    if !writes.isEmpty { pending.add(writes) }
  }

  func stop() {
    guard let running else { return }
    self.running = nil
    running.task.cancel()
    running.locator.stop()
    let done = DispatchSemaphore(value: 0)
    Task {
      await running.task.value
      done.signal()
    }
    done.wait()
    try? running.group.syncShutdownGracefully()
  }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target.
public func describeHomeKitControllerPlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: HomeKitControllerPlugin.self, name: "homekit-controller", version: PatchbayVersion.current,
    description: "a HomeKit controller: the services of a paired HomeKit accessory as ports")
}
