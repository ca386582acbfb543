import HAP
import PatchbayPluginKit
import Synchronization

/// Where the accessory's values go: each characteristic to its service's output port, a light's
/// characteristics gathered into one light state. Used from the connection's tasks.
final class AccessoryOutputs: Sendable {
  let context: PluginContext
  let services: [ServicePorts]
  /// Per service index, its one output.
  let outputs: [Int: OutputPort]
  /// Characteristic id → service index (ids can move when a bridge re-numbers).
  private let routing: Mutex<[HAPCharacteristicID: Int]>
  private let lights = Mutex<[Int: LightCommand]>([:])

  init(context: PluginContext, services: [ServicePorts], outputs: [Int: OutputPort]) {
    self.context = context
    self.services = services
    self.outputs = outputs
    routing = Mutex(Self.routing(services))
  }

  static func routing(_ services: [ServicePorts]) -> [HAPCharacteristicID: Int] {
    var routing: [HAPCharacteristicID: Int] = [:]
    for (index, service) in services.enumerated() { for id in service.ids { routing[id] = index } }
    return routing
  }

  /// Every characteristic followed, in id order.
  var followed: [HAPCharacteristicID] {
    routing.withLock { Array($0.keys) }.sorted { ($0.aid, $0.iid) < ($1.aid, $1.iid) }
  }

  /// The accessory's database as just read: the same services (names and kinds) keep their
  /// ports, at the ids they have now; anything else needs a restart for new ports.
  func databaseRead(_ fresh: [ServicePorts]) -> Bool {
    guard fresh.map(\.name) == services.map(\.name), fresh.map(\.kind) == services.map(\.kind) else { return false }
    routing.withLock { $0 = Self.routing(fresh) }
    return true
  }

  /// A value read or sent by the accessory, onto its service's output.
  func changed(_ change: HAPCharacteristicValue) {
    guard let index = routing.withLock({ $0[change.id] }), let port = outputs[index] else { return }
    let service = services[index]
    guard let type = service.characteristics.first(where: { $0.value == change.id.iid })?.key else { return }
    if service.kind == .light {
      let state = lights.withLock { lights in
        let next = ServiceValues.light(lights[index] ?? LightCommand(), type: type, change.value)
        lights[index] = next
        return next
      }
      var shown = state
      if var color = shown.color {
        color.brightness = state.brightness ?? color.brightness
        shown.color = color
      }
      context.publish(.light(shown), on: port)
    } else if let value = ServiceValues.value(of: service, type: type, change.value) {
      context.publish(value, on: port)
    }
  }
}
