import HomebridgeConnection
import HomebridgeProtocol
import PatchbayPluginKit

/// homebridge-websocket: makes patchbay ports HomeKit accessories through the
/// Homebridge-websocket plugin, and HomeKit writes patchbay outputs. The instance's
/// `connected` output (state, bool) is true while HomeKit's writes reach it (the websocket is
/// open and no other client has taken the server's traffic); `peer` (state, text) says which
/// of connected, disconnected or taken over, and is what `patchbay status` shows in PEER.
final class HomebridgePlugin: PatchbayPlugin {
  let context: PluginContext
  let client: HomebridgeClient
  let connected: OutputPort
  /// Input port index -> the accessory it belongs to and what it carries.
  let inputs: [UInt32: (accessory: Int, input: AccessoryPorts.Input)]
  let accessories: [AccessoryPorts]

  init(context: PluginContext) throws {
    self.context = context
    let (endpoint, definitions, timing) = try HomebridgeConfig.load(from: context)
    let connected = try context.addOutput(
      "connected", .bool, kind: .state,
      description: "the websocket to Homebridge is open and HomeKit's writes come here")
    self.connected = connected
    let peer = try context.addOutput(
      "peer", .text, kind: .state, description: "connected, disconnected, or taken over (by another client)",
      shownInStatus: .peer)
    var accessories: [AccessoryPorts] = []
    var inputs: [UInt32: (accessory: Int, input: AccessoryPorts.Input)] = [:]
    for definition in definitions {
      let ports = try AccessoryPorts(declaring: definition, in: context)
      for (index, input) in ports.inputs { inputs[index] = (accessories.count, input) }
      accessories.append(ports)
    }
    self.inputs = inputs
    self.accessories = accessories
    let byName = Dictionary(uniqueKeysWithValues: accessories.map { ($0.definition.name, $0) })
    client = HomebridgeClient(
      endpoint: endpoint, accessories: definitions,
      stateFile: context.stateDirectory + "/" + HomebridgeClient.stateFileName,
      knownValuesFile: context.stateDirectory + "/" + HomebridgeClient.knownValuesFileName, timing: timing,
      log: { [context] level, message in
        switch level {
        case .debug: context.log(.debug, message)
        case .info: context.log(.info, message)
        case .warning: context.log(.warning, message)
        }
      },
      onHomeKitWrite: { [context] write, values in
        context.log(.info, "HomeKit wrote \(write.key) = \(write.value.description)")
        guard let ports = byName[write.key.accessory] else { return }
        for (value, output) in ports.publications(for: write, values: values) {
          context.publish(value, on: output)
        }
      },
      onConnectionChange: { [context] state in
        context.publish(.bool(state.isConnected), on: connected)
        context.publish(.text(state.rawValue), on: peer)
      })
  }

  func start() throws {
    context.log(.info, "connecting to Homebridge at \(client.endpoint) for \(accessories.count) accessories")
    client.start()
  }

  func receive(_ value: Value, on port: InputPort) throws {
    guard let (index, input) = inputs[port.index] else { return }
    let updates = accessories[index].updates(for: value, on: input)
    if updates.isEmpty {
      context.log(.debug, "\(port.name): \(value) has nothing to set in HomeKit")
      return
    }
    client.update(updates)
  }

  func stop() {
    client.stop()
  }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target (kept apart so
/// tests can link this module without a second copy of the entry symbol).
///
/// ABI minor 2: the `NAME.C.set` outputs mirror their inputs (and `peer` is the PEER column).
/// A hub older than 1.2 ignores the mirroring, and would hand a restarted instance the hub's
/// older value over what HomeKit wrote: it must refuse the plugin instead of running it so.
public func describeHomebridgePlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: HomebridgePlugin.self, name: "homebridge-websocket", version: PatchbayVersion.current,
    description: "HomeKit accessories through Homebridge's homebridge-websocket plugin", minimumABIMinor: 2)
}
