import Dispatch
import Foundation
import HAP
import NIOPosix
import PatchbayPluginKit
import Synchronization

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
  private var running: (task: Task<Void, Never>, group: MultiThreadedEventLoopGroup)?

  init(context: PluginContext) throws {
    self.context = context
    config = try context.config(ControllerConfig.self)
    store = ControllerPairingStore(directory: context.stateDirectory)
    pairing = try store.loadPairing()
    connected = try context.addOutput(
      "connected", .bool, kind: .state, description: "true while the accessory is connected and verified",
      shownInStatus: .peer)
    services = pairing == nil ? [] : ServiceLayout.services(in: store.loadAccessories() ?? .object([]))
    if pairing == nil {
      // At create, so `patchbay check` shows it too.
      context.log(
        .warning,
        "not paired yet: find the accessory with 'patchbay homekit-controller discover', then "
          + "'patchbay homekit-controller pair \(context.instanceName) --device ID --code XXX-XX-XXX', and restart "
          + "the instance")
    }
    var outputs: [Int: OutputPort] = [:]
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
      }
    }
    self.outputs = AccessoryOutputs(context: context, services: services, outputs: outputs)
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
    let link = AccessoryLink(
      controller: controller, accessory: try pairing.accessory(), host: pairing.host, port: pairing.port,
      name: pairing.name, instance: context.instanceName, pending: pending,
      follows: { outputs.followed },
      callbacks: .init(
        value: { outputs.changed($0) },
        connected: { context.publish(.bool($0), on: connected) },
        log: { context.log($0 ? .warning : .info, $1) },
        database: { database in
          let fresh = ServiceLayout.services(in: database)
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
    running = (Task { await link.run() }, group)
    context.log(
      .info,
      "following \(pairing.name) (\(pairing.accessoryID)) at \(pairing.host):\(pairing.port): "
        + "\(services.count) services as ports")
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
