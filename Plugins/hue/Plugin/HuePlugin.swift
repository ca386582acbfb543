import HueProtocol
import NIOCore
import NIOPosix
import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The hue plugin: the lights and groups of a Hue bridge through its v1 REST API. See
/// docs/plugins/hue.md for the config and the ports.
final class HuePlugin: PatchbayPlugin {
  let context: PluginContext
  let config: HueConfig
  let ports: [GroupPorts]
  /// Input port index -> (group, member or nil for the group's own `light`).
  let inputs: [UInt32: (group: Int, member: Int?)]
  private var driver: HueDriver?
  private var eventLoops: MultiThreadedEventLoopGroup?

  init(context: PluginContext) throws {
    self.context = context
    config = try context.config(HueConfig.self)
    ports = try config.groups.map { try GroupPorts(declaring: $0, in: context) }
    var inputs: [UInt32: (group: Int, member: Int?)] = [:]
    for (group, groupPorts) in ports.enumerated() {
      inputs[groupPorts.light.index] = (group, nil)
      for (member, memberPorts) in groupPorts.members.enumerated() { inputs[memberPorts.light.index] = (group, member) }
    }
    self.inputs = inputs
  }

  func start() throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let client = BridgeClient(
      host: config.host, port: config.port, username: config.username, timeoutSeconds: config.requestTimeoutSeconds,
      maxConnections: config.maxInFlight, group: group)
    let context = self.context
    let driver = HueDriver(
      config: config, ports: ports, loop: group.next(), client: client,
      publish: { value, port in context.publish(value, on: port) },
      log: { level, message in context.log(level, message) })
    eventLoops = group
    self.driver = driver
    context.log(
      .info,
      "driving \(config.groups.count) groups on the bridge at \(client.base) "
        + "(≤ \(config.groupRate) group and \(config.lightRate) light commands/s, ≤ \(config.maxInFlight) requests at once)"
    )
    driver.start()
  }

  func receive(_ value: Value, on port: InputPort) throws {
    guard case .light(let command) = value, let target = inputs[port.index], let driver else { return }
    if let member = target.member {
      driver.submit(command, toMember: member, ofGroup: target.group)
    } else {
      driver.submit(command, toGroup: target.group)
    }
  }

  func stop() {
    driver?.stop()
    driver = nil
    try? eventLoops?.syncShutdownGracefully()
    eventLoops = nil
  }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target (kept apart so
/// tests can link this module without a second copy of the entry symbol).
public func describeHuePlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: HuePlugin.self, name: "hue", version: PatchbayVersion.current,
    description: "Hue lights and groups through a bridge's v1 API, within the bridge's rate limits")
}
