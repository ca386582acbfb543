import Dispatch
import MQTTProtocol
import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The mqtt plugin: topics of an MQTT broker as typed ports, Zigbee2MQTT lights and remotes,
/// through libmosquitto. See docs/plugins/mqtt.md for the config and the ports.
final class MQTTPlugin: PatchbayPlugin {
  /// What an input port writes to.
  enum InputTarget {
    case topic(TopicMapping)
    case zigbeeLight(setTopic: String)
    case homeAssistant(HomeAssistantEntity)
    case homeAssistantAvailability(HomeAssistantEntity)
    case share(SharedPort, topic: String)
  }

  let context: PluginContext
  let config: MQTTConfig
  let connectedPort: OutputPort
  /// The hub's kept id (HubIdentity), shown by `patchbay status` through `hubIDPort`.
  let hubID: String
  let hubIDPort: OutputPort
  let inputs: [UInt32: InputTarget]
  let router: MessageRouter
  let statusTopic: String
  /// The hub's transitions (`online` at connect, `offline` at a clean stop), not retained.
  let eventTopic: String
  let discovery: HomeAssistantDiscovery?
  private var client: MosquittoClient?
  /// The "went away" event's last will (a connection of its own).
  private var departureWatch: DepartureWatch?
  private var outbox: Outbox?
  /// Per shared port sequence numbers; used in the plugin context only.
  private var sequence = ShareSequence(epoch: 0)
  /// Events dropped by a full outbox, as last logged; used in the plugin context only.
  private var droppedLogged = 0
  /// HA entities whose too-long text was already reported; used in the plugin context only.
  private var truncationLogged: Set<String> = []

  init(context: PluginContext) throws {
    self.context = context
    config = try MQTTConfig(json: context.configJSON)
    for warning in config.sharedIdentityWarnings { context.log(.warning, warning) }
    hubID = try HubIdentity.loadOrCreate(in: context.stateDirectory)
    let baseTopic = config.broker.baseTopic(instance: context.instanceName, hubID: hubID)
    statusTopic = TopicFilter.join(baseTopic, "status")
    eventTopic = TopicFilter.join(baseTopic, "event")
    connectedPort = try context.addOutput(
      "connected", .bool, kind: .state, description: "true while the broker has accepted the connection",
      shownInStatus: .peer)
    hubIDPort = try context.addOutput(
      "hub_id", .text, kind: .state, description: "this hub's id in Home Assistant ids, client id and topics",
      shownInStatus: .shown)
    var inputs: [UInt32: InputTarget] = [:]
    var router = MessageRouter()
    for mapping in config.topics {
      var input: InputPort?
      if let topic = mapping.publish, let name = mapping.inputPortName {
        let port = try context.addInput(name, mapping.type, kind: mapping.kind, description: "to \(topic)")
        inputs[port.index] = .topic(mapping)
        input = port
      }
      var outputs: [String: OutputPort] = [:]
      if let filter = mapping.subscribe {
        // One state topic read and written (a device's state): what the device reports is
        // what its input follows, so a restart does not send an older command again.
        let mirrored = mapping.kind == .state && mapping.each.isEmpty ? input : nil
        // Keyed by what picks the port in a received topic (TopicFilter.portKey).
        for key in mapping.each.isEmpty ? [""] : mapping.each {
          let topic = mapping.wildcard.map { $0.topic(for: key, filter: filter) } ?? filter
          outputs[key] = try context.addOutput(
            mapping.outputPortName(forKey: key), mapping.type, kind: mapping.kind, description: "from \(topic)",
            mirroring: mirrored)
        }
        router.routes.append(.topic(mapping, outputs: outputs))
      }
    }
    let base = config.zigbee2mqttBaseTopic
    for device in config.zigbee2mqtt {
      switch device.kind {
      case .light:
        let input = try context.addInput(
          device.lightInput, .light, kind: .state, description: "to \(device.setTopic(base: base))")
        inputs[input.index] = .zigbeeLight(setTopic: device.setTopic(base: base))
        let state = try context.addOutput(
          device.stateOutput, .light, kind: .state, description: "from \(device.stateTopic(base: base))",
          mirroring: input)
        router.routes.append(.zigbeeLight(topic: device.stateTopic(base: base), state: state))
      case .remote:
        let action = try context.addOutput(
          device.actionOutput, .button, kind: .event, description: "actions of \(device.stateTopic(base: base))")
        let text = try context.addOutput(
          device.actionTextOutput, .text, kind: .event, description: "every action word, as sent")
        router.routes.append(.zigbeeRemote(topic: device.stateTopic(base: base), action: action, text: text))
      }
    }
    if let settings = config.homeAssistant {
      let discovery = HomeAssistantDiscovery(
        settings: settings, instance: context.instanceName, hubID: hubID, baseTopic: baseTopic,
        version: MQTTPlugin.version)
      for entity in settings.entities {
        let input = try context.addInput(
          entity.statePort, entity.stateType, kind: entity.component == .button ? .event : .state,
          description: "shown in Home Assistant as \(entity.component.rawValue) \(entity.title)")
        inputs[input.index] = .homeAssistant(entity)
        if let name = entity.availablePort {
          let available = try context.addInput(
            name, .bool, kind: .state,
            description: "false: \(entity.title) is unavailable in Home Assistant (route a plugin's connected here)")
          inputs[available.index] = .homeAssistantAvailability(entity)
        }
        if let name = entity.commandPort {
          let port = try context.addOutput(
            name, entity.stateType, kind: .event, description: "Home Assistant's commands to \(entity.title)")
          router.routes.append(
            .homeAssistantCommand(
              topic: discovery.commandTopic(entity), entity: entity, port: port, discovery: discovery))
        }
      }
      router.routes.append(.homeAssistantBirth(topic: discovery.birthTopic))
      self.discovery = discovery
    } else {
      discovery = nil
    }
    if let share = config.share, let hub = config.hubName {
      for port in share.ports {
        let topic = port.topic(prefix: config.sharePrefix, hub: hub, instance: context.instanceName)
        let input = try context.addInput(port.portName, port.type, kind: port.kind, description: "shared as \(topic)")
        inputs[input.index] = .share(port, topic: topic)
      }
    }
    for imported in config.imports {
      let topic = imported.topic(prefix: config.sharePrefix)
      let port = try context.addOutput(
        imported.portName, imported.type, kind: imported.kind, description: "from \(topic)")
      router.routes.append(.imported(topic: topic, type: imported.type, port: port))
    }
    self.inputs = inputs
    self.router = router
  }

  static let version = PatchbayVersion.current

  /// How to reach the broker; `will`: the status topic's `offline` when the connection drops.
  func options(will: Bool) throws -> MosquittoClient.Options {
    let broker = config.broker
    let password = try broker.passwordFile.map(PasswordFile.read)
    return MosquittoClient.Options(
      host: broker.host, port: broker.port, keepaliveSeconds: broker.keepaliveSeconds,
      clientID: broker.clientID(instance: context.instanceName, hub: config.hubName, hubID: hubID),
      cleanSession: broker.cleanSession,
      protocolVersion: broker.protocolVersion, username: broker.username, password: password, tls: broker.tls,
      will: will ? (statusTopic, Array("offline".utf8)) : nil, retryInitialSeconds: broker.retryInitialSeconds,
      retryMaxSeconds: broker.retryMaxSeconds)
  }

  /// Removed from the config: what the instance left retained on the broker goes (its Home
  /// Assistant discovery configs and state topics, as remembered, and its status topic).
  func retire() throws {
    let announcer = DiscoveryAnnouncer(discovery: nil, stateDirectory: context.stateDirectory, context: context)
    let topics = announcer.readRecord() + [statusTopic]
    try RetainedCleanup(
      options: try options(will: false), maxPayloadBytes: config.broker.maxPayloadBytes, context: context
    )
    .clear(topics)
    announcer.writeRecord([])
    context.log(
      .info,
      "cleared \(topics.count) retained topics on \(config.broker.host):\(config.broker.port) "
        + "(\(topics.count - 1) Home Assistant ones and \(statusTopic))")
  }

  func start() throws {
    let broker = config.broker
    let options = try options(will: true)

    let outbox = Outbox(capacity: Outbox.defaultCapacity)
    sequence = ShareSequence(epoch: Int64(Date().timeIntervalSince1970 * 1000))
    let events = ConnectionEvents(
      context: context, router: router, outbox: outbox, connectedPort: connectedPort, statusTopic: statusTopic,
      eventTopic: eventTopic,
      zigbeeLightGets: config.zigbee2mqtt.filter { $0.kind == .light }.map {
        $0.getTopic(base: config.zigbee2mqttBaseTopic)
      },
      // Also without [home_assistant]: what an earlier config announced is cleared.
      announcer: DiscoveryAnnouncer(discovery: discovery, stateDirectory: context.stateDirectory, context: context),
      peer: "\(broker.host):\(broker.port) as \(options.clientID) (MQTT \(broker.protocolVersion.rawValue))",
      maxPayloadBytes: broker.maxPayloadBytes)
    let client = try MosquittoClient(
      options: options, maxPayloadBytes: broker.maxPayloadBytes, events: events.callbacks)
    self.client = client
    self.outbox = outbox
    context.publish(.bool(false), on: connectedPort)
    context.publish(.text(hubID), on: hubIDPort)
    context.log(
      .info,
      "connecting to \(broker.host):\(broker.port)\(broker.tls == nil ? "" : " (TLS)"); \(router.subscriptions.count) subscriptions, \(inputs.count) publishing ports"
    )
    try client.start()
    let departureWatch = try DepartureWatch(
      options: options, eventTopic: eventTopic, maxPayloadBytes: broker.maxPayloadBytes, context: context)
    self.departureWatch = departureWatch
    try departureWatch.start()
  }

  func receive(_ value: Value, on port: InputPort) throws {
    guard let outbox, let client, let target = inputs[port.index], let message = message(for: value, to: target) else {
      return
    }
    let dropped = outbox.post(message, send: client.send)
    if dropped > droppedLogged {
      context.log(
        .warning,
        "the broker is away and \(Outbox.defaultCapacity) messages wait: \(dropped) oldest events dropped so far")
      droppedLogged = dropped
    }
  }

  /// What a value on an input port is published as.
  func message(for value: Value, to target: InputTarget) -> Outbox.Message? {
    switch target {
    case .topic(let mapping):
      guard let topic = mapping.publish else { return nil }
      return Outbox.Message(
        topic: topic, payload: mapping.format.encode(value), qos: mapping.qos, retain: mapping.retain,
        latestOnly: mapping.kind == .state)
    case .homeAssistant(let entity):
      guard let discovery, let message = discovery.statePublish(value, for: entity) else { return nil }
      if case .text(let text) = value, text.count > HomeAssistantDiscovery.maxStateLength,
        truncationLogged.insert(entity.name).inserted
      {
        context.log(
          .warning,
          "\(entity.statePort): a text of \(text.count) characters is sent to Home Assistant as its first "
            + "\(HomeAssistantDiscovery.maxStateLength) (HA shows no longer state; reported once)")
      }
      return Outbox.Message(
        topic: message.topic, payload: Array(message.payload.utf8), qos: 1, retain: message.retain,
        latestOnly: message.retain)
    case .homeAssistantAvailability(let entity):
      guard let discovery, case .bool(let available) = value else { return nil }
      let message = discovery.availabilityPublish(available, for: entity)
      return Outbox.Message(
        topic: message.topic, payload: Array(message.payload.utf8), qos: 1, retain: true, latestOnly: true)
    case .share(let shared, let topic):
      let envelope = sequence.next(for: shared.name, value: value, kind: shared.kind)
      return Outbox.Message(
        topic: topic, payload: Array(envelope.json.description.utf8), qos: 1, retain: shared.kind == .state,
        latestOnly: shared.kind == .state)
    case .zigbeeLight(let setTopic):
      guard case .light(let command) = value else { return nil }
      return Outbox.Message(
        topic: setTopic, payload: Array(Zigbee2MQTTLight.setPayload(command).description.utf8), qos: 1,
        retain: false, latestOnly: true)
    }
  }

  func stop() {
    let client = client
    let departureWatch = departureWatch
    let farewell: [MosquittoClient.Farewell] = [
      .init(topic: eventTopic, payload: Array("offline".utf8), retain: false),
      .init(topic: statusTopic, payload: Array("offline".utf8), retain: true),
    ]
    // Both at once: each may wait for a connect that hangs, and a stop has a deadline.
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      if index == 0 { client?.stop(farewell: farewell) } else { departureWatch?.stop() }
    }
    self.departureWatch = nil
    self.client = nil
    outbox = nil
  }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target (kept apart so
/// tests can link this module without a second copy of the entry symbol).
public func describeMQTTPlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: MQTTPlugin.self, name: "mqtt", version: PatchbayVersion.current,
    description:
      "MQTT topics as typed ports, Zigbee2MQTT lights and remotes, Home Assistant discovery, ports shared between hubs (libmosquitto)"
  )
}
