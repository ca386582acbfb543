import HAP
import HomeKitControllerProtocol
import PatchbayPluginKit
import Synchronization

/// Where the accessory's values go: each characteristic to its service's output port, a light's
/// characteristics gathered into one light state. Used from the connection's tasks.
final class AccessoryOutputs: Sendable {
  let context: PluginContext
  /// Per service index, its one output (a kind of its own).
  let outputs: [Int: OutputPort]
  /// Per `.other` service index, an output per characteristic type.
  let readings: [Int: [String: OutputPort]]
  /// The services at the ids the accessory last gave them (ids can move when a bridge
  /// re-numbers), and characteristic id → service index.
  private let current: Mutex<(services: [ServicePorts], routing: [HAPCharacteristicID: Int])>
  private let lights = Mutex<[Int: LightCommand]>([:])

  init(
    context: PluginContext, services: [ServicePorts], outputs: [Int: OutputPort],
    readings: [Int: [String: OutputPort]]
  ) {
    self.context = context
    self.outputs = outputs
    self.readings = readings
    current = Mutex((services, Self.routing(services)))
  }

  static func routing(_ services: [ServicePorts]) -> [HAPCharacteristicID: Int] {
    var routing: [HAPCharacteristicID: Int] = [:]
    for (index, service) in services.enumerated() { for id in service.ids { routing[id] = index } }
    return routing
  }

  /// Every characteristic read on connect, and those among them subscribed to, in id order.
  var followed: (read: [HAPCharacteristicID], subscribe: [HAPCharacteristicID]) {
    let order: @Sendable (HAPCharacteristicID, HAPCharacteristicID) -> Bool = { ($0.aid, $0.iid) < ($1.aid, $1.iid) }
    return current.withLock { current in
      (current.services.flatMap(\.ids).sorted(by: order), current.services.flatMap(\.subscribed).sorted(by: order))
    }
  }

  /// The accessory's database as just read: the same services (names, kinds and readings) keep
  /// their ports, at the ids they have now; anything else needs a restart for new ports.
  func databaseRead(_ fresh: [ServicePorts]) -> Bool {
    current.withLock { current in
      let shape = { (services: [ServicePorts]) in
        services.map { [$0.name, $0.kind.rawValue] + $0.readings.map(\.name) }
      }
      guard shape(fresh) == shape(current.services) else { return false }
      current = (fresh, Self.routing(fresh))
      return true
    }
  }

  /// A value read or sent by the accessory, onto its service's output.
  func changed(_ change: HAPCharacteristicValue) {
    let found = current.withLock { current -> (Int, ServicePorts, String)? in
      guard let index = current.routing[change.id] else { return nil }
      let service = current.services[index]
      guard let type = service.characteristics.first(where: { $0.value == change.id.iid })?.key else { return nil }
      return (index, service, type)
    }
    guard let (index, service, type) = found else { return }
    if service.kind == .other {
      guard let port = readings[index]?[type], let reading = service.readings.first(where: { $0.type == type }),
        let value = ServiceValues.value(of: reading, change.value)
      else { return }
      context.publish(value, on: port)
      return
    }
    guard let port = outputs[index] else { return }
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
