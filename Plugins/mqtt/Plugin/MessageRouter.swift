import MQTTProtocol
import PatchbayPluginKit

/// From a received message to the output ports it feeds: the `[[topics]]` whose filter
/// matches and the Zigbee2MQTT devices whose state topic it is. Immutable after create, so
/// the libmosquitto thread reads it without locks.
struct MessageRouter: Sendable {
  enum Route: Sendable {
    /// A `[[topics]]` entry: its filter, and its output ports by the `+` level they read
    /// ("" without `each`).
    case topic(TopicMapping, outputs: [String: OutputPort])
    case zigbeeLight(topic: String, state: OutputPort)
    case zigbeeRemote(topic: String, action: OutputPort, text: OutputPort)
    /// Home Assistant's commands for one entity.
    case homeAssistantCommand(
      topic: String, entity: HomeAssistantEntity, port: OutputPort, discovery: HomeAssistantDiscovery)
    /// Another hub's shared port.
    case imported(topic: String, type: ValueType, port: OutputPort)
    /// Home Assistant's birth message (`online` asks for discovery again); handled by the plugin.
    case homeAssistantBirth(topic: String)
  }

  var routes: [Route] = []

  /// The filters to subscribe to, each once, with the highest QoS asked for it.
  var subscriptions: [(filter: String, qos: Int32)] {
    var result: [(filter: String, qos: Int32)] = []
    for route in routes {
      let (filter, qos): (String?, Int32) =
        switch route {
        case .topic(let mapping, _): (mapping.subscribe, mapping.qos)
        case .zigbeeLight(let topic, _), .zigbeeRemote(let topic, _, _), .homeAssistantCommand(let topic, _, _, _),
          .homeAssistantBirth(let topic), .imported(let topic, _, _):
          (topic, 1)
        }
      guard let filter else { continue }
      if let index = result.firstIndex(where: { $0.filter == filter }) {
        result[index].qos = max(result[index].qos, qos)
      } else {
        result.append((filter, qos))
      }
    }
    return result
  }

  /// Decodes `payload` for every route that takes `topic`, publishing the values; each
  /// problem goes to `warn` and the message is otherwise ignored. A topic that a `#`
  /// subscription brings but no port wants goes to `ignore`; what was adjusted on the way (a
  /// colour temperature clamped into a light's range) goes to `note`.
  func deliver(
    topic: String, payload: [UInt8], publish: (Value, OutputPort) -> Void, warn: (String) -> Void,
    ignore: (String) -> Void = { _ in }, note: (String) -> Void = { _ in },
    isNew: (String, ShareEnvelope) -> Bool = { _, _ in true }
  ) {
    for route in routes {
      switch route {
      case .topic(let mapping, let outputs):
        guard let filter = mapping.subscribe, let key = TopicFilter.portKey(topic, filter: filter) else { continue }
        guard let port = outputs[key] else {
          switch mapping.wildcard {
          // A # subscription is wide by design (a device's other topics): not worth a warning.
          case .rest?: ignore("'\(key)' is not in \(mapping.name)'s each list (under \(filter))")
          default: warn("level '\(key)' is not in \(mapping.name)'s each list")
          }
          continue
        }
        do throws(PayloadError) {
          publish(try mapping.format.decode(payload, as: mapping.type), port)
        } catch {
          warn("\(error.description) (port \(port.name), \(mapping.type.name))")
        }
      case .zigbeeLight(let stateTopic, let state):
        guard topic == stateTopic else { continue }
        do throws(PayloadError) {
          publish(.light(try Zigbee2MQTTLight.command(fromPayload: payload)), state)
        } catch {
          warn("\(error.description) (Zigbee2MQTT light, port \(state.name))")
        }
      case .homeAssistantCommand(let commandTopic, let entity, let port, let discovery):
        guard topic == commandTopic else { continue }
        do throws(PayloadError) {
          publish(try discovery.command(payload, for: entity, note: note), port)
        } catch {
          warn("\(error.description) (Home Assistant \(entity.component.rawValue) \(entity.name))")
        }
      case .homeAssistantBirth:
        continue
      case .imported(let importTopic, let type, let port):
        guard topic == importTopic else { continue }
        do throws(PayloadError) {
          let envelope = try ShareEnvelope(payload: payload, expected: type)
          if isNew(topic, envelope) { publish(envelope.value, port) }
        } catch {
          warn("\(error.description) (import \(port.name))")
        }
      case .zigbeeRemote(let stateTopic, let action, let text):
        guard topic == stateTopic else { continue }
        do throws(PayloadError) {
          guard let word = try Zigbee2MQTTRemote.action(fromPayload: payload) else { continue }
          publish(.text(word), text)
          if let button = Zigbee2MQTTRemote.buttonAction(word) { publish(.button(ButtonEvent(action: button)), action) }
        } catch {
          warn("\(error.description) (Zigbee2MQTT remote, port \(action.name))")
        }
      }
    }
  }
}
