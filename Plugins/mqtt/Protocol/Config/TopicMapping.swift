import PatchbayPluginKit
import PatchbayValues

/// One `[[topics]]` entry: a topic read into an output port and/or an input port written to a
/// topic, with the port's type and kind and the payload format.
///
/// ```toml
/// [[instances.mqtt.topics]]
/// name = "kitchen.temperature"          # the port name
/// type = "number"                       # bool, integer, number, text, trigger, color, light, button
/// kind = "state"                        # or "event"; default state
/// subscribe = "sensors/kitchen/SENSOR"  # output port `kitchen.temperature`
/// publish = "sensors/kitchen/set"       # input port (`NAME.set` when the entry also subscribes)
/// format = "json"                       # or "plain" (default)
/// json_path = "temperature"             # the value inside the JSON object (implies json)
/// payload_on = "ON"                     # bool words (default true/false)
/// payload_off = "OFF"
/// min = -40                             # out-of-range values are logged and ignored
/// max = 60
/// ```
public struct TopicMapping: Sendable, Equatable {
  public var name: String
  public var type: ValueType
  public var kind: PortKind
  /// A topic filter; a wildcard (one `+` level or a final `#`) only with `each`.
  public var subscribe: String?
  public var publish: String?
  /// The wildcard in `subscribe`, if any: which part of a received topic picks the port.
  public var wildcard: TopicWildcard?
  /// With a wildcard in `subscribe`: the `+` level values, or the topics under the `#`, that
  /// get a port each (`NAME.LEVEL`; `NAME.A.B` for `A/B` under a `#`).
  public var each: [String]
  public var format: PayloadFormat
  public var qos: Int32
  public var retain: Bool

  /// The output ports, each with the exact topic or wildcard level it reads.
  public var outputPortNames: [String] {
    guard subscribe != nil else { return [] }
    return each.isEmpty ? [name] : each.map(outputPortName(forKey:))
  }

  /// The output port for a key of `TopicFilter.portKey` ("" without a wildcard).
  public func outputPortName(forKey key: String) -> String {
    key.isEmpty ? name : "\(name).\(TopicWildcard.portSuffix(key))"
  }

  /// The input port, if the entry publishes.
  public var inputPortName: String? {
    guard publish != nil else { return nil }
    return subscribe == nil ? name : "\(name).set"
  }
}

extension TopicMapping: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case name, type, kind, subscribe, publish, each, format
    case jsonPath = "json_path"
    case payloadOn = "payload_on"
    case payloadOff = "payload_off"
    case triggerPayload = "trigger_payload"
    case min, max, qos, retain
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    name = try PortName.check(table.decode(String.self, forKey: .name), key: "name", in: decoder)
    type = try Self.valueType(table.decode(String.self, forKey: .type), in: decoder)
    kind = try Self.portKind(table.decodeIfPresent(String.self, forKey: .kind), type: type, in: decoder)
    subscribe = try table.decodeIfPresent(String.self, forKey: .subscribe)
    publish = try table.decodeIfPresent(String.self, forKey: .publish)
    each = try table.decodeIfPresent([String].self, forKey: .each) ?? []
    wildcard = nil
    guard subscribe != nil || publish != nil else {
      throw decoder.mistake("subscribe", "or publish is needed: a topic to read into a port, or to write a port to")
    }
    if let publish, let problem = TopicFilter.problemAsTopicName(publish) {
      throw decoder.mistake("publish", problem)
    }
    if let subscribe {
      if let problem = TopicFilter.problemAsFilter(subscribe) { throw decoder.mistake("subscribe", problem) }
      switch TopicWildcard.of(subscribe) {
      case .failure(let problem): throw decoder.mistake("subscribe", problem.message)
      case .success(let found): wildcard = found
      }
      switch wildcard {
      case .level? where each.isEmpty:
        throw decoder.mistake(
          "subscribe", "'\(subscribe)' has a + wildcard: list the levels that name ports in each = [\"kitchen\", ...]")
      case .rest? where each.isEmpty:
        let under = subscribe == "#" ? "" : " under '\(subscribe.dropLast())'"
        throw decoder.mistake(
          "subscribe",
          "'\(subscribe)' has a # wildcard: list the topics\(under) that name ports in each = [\"kitchen/temperature\", ...]"
        )
      case nil where !each.isEmpty:
        throw decoder.mistake("each", "needs a wildcard in subscribe: a + level or a final #")
      default: break
      }
    } else if !each.isEmpty {
      throw decoder.mistake("each", "needs subscribe with a + level or a final #")
    }
    if !each.isEmpty && publish != nil {
      throw decoder.mistake("publish", "cannot be combined with each (one publish topic per entry)")
    }
    var seenPorts: [String: Int] = [:]
    for (index, entry) in each.enumerated() {
      if let wildcard, let subscribe, let problem = wildcard.problem(entry: entry, filter: subscribe) {
        throw decoder.mistake("each.\(index)", problem)
      }
      let port = "\(name).\(TopicWildcard.portSuffix(entry))"
      guard PortName.isValid(port) else {
        var topic = entry
        if let wildcard, let subscribe { topic = wildcard.topic(for: entry, filter: subscribe) }
        throw decoder.mistake(
          "each.\(index)",
          "'\(entry)' would name port '\(port)', but port names are 1 to 64 of a-z, 0-9, _ and .; give that topic a [[topics]] entry of its own (subscribe = \"\(topic)\", and a name)"
        )
      }
      if let first = seenPorts.updateValue(index, forKey: port) {
        throw decoder.mistake(
          "each.\(index)", "'\(entry)' names port '\(port)' again (each.\(first) '\(each[first])' names it already)")
      }
    }

    format = PayloadFormat()
    let formatName = try table.decodeIfPresent(String.self, forKey: .format)
    let path = try table.decodeIfPresent(String.self, forKey: .jsonPath)
    switch formatName {
    case nil,
      "plain" where path == nil, "json":
      if let path {
        guard let parsed = JSONPath(path) else {
          throw decoder.mistake("json_path", "'\(path)' must be keys separated by dots, like \"a.b\"")
        }
        format.jsonPath = parsed
      } else if formatName == "json" {
        format.wholeJSON = true
      }
    case "plain": throw decoder.mistake("json_path", "needs format = \"json\" (or no format)")
    case let other?: throw decoder.mistake("format", "'\(other)' must be \"plain\" or \"json\"")
    }
    if let on = try table.decodeIfPresent(String.self, forKey: .payloadOn) {
      format.payloadOn = on
      format.customBoolWords = true
    }
    if let off = try table.decodeIfPresent(String.self, forKey: .payloadOff) {
      format.payloadOff = off
      format.customBoolWords = true
    }
    if format.payloadOn.isEmpty || format.payloadOff.isEmpty
      || format.payloadOn.lowercased() == format.payloadOff.lowercased()
    {
      throw decoder.mistake("payload_on", "and payload_off must be two different, non-empty words")
    }
    format.triggerPayload = try table.decodeIfPresent(String.self, forKey: .triggerPayload) ?? format.triggerPayload
    format.minimum = try table.decodeIfPresent(Double.self, forKey: .min)
    format.maximum = try table.decodeIfPresent(Double.self, forKey: .max)
    if (format.minimum != nil || format.maximum != nil) && type != .integer && type != .number {
      throw decoder.mistake("min", "and max apply to integer and number ports only")
    }
    if let minimum = format.minimum, let maximum = format.maximum, minimum > maximum {
      throw decoder.mistake("min", "must not be above max")
    }
    qos = try table.decodeIfPresent(Int32.self, forKey: .qos) ?? 1
    guard (0...2).contains(qos) else { throw decoder.mistake("qos", "must be 0, 1 or 2") }
    retain = try table.decodeIfPresent(Bool.self, forKey: .retain) ?? (kind == .state)
  }

  static func valueType(_ name: String, in decoder: Decoder) throws -> ValueType {
    guard let type = ValueType(name: name) else {
      let names = ValueType.allCases.map(\.name)
      let hint = Spelling.closest(to: name, in: names).map { " (did you mean '\($0)'?)" } ?? ""
      throw decoder.mistake("type", "'\(name)' is not a value type\(hint); one of \(names.joined(separator: ", "))")
    }
    return type
  }

  static func portKind(_ name: String?, type: ValueType, in decoder: Decoder) throws -> PortKind {
    switch name {
    case nil: return type == .trigger || type == .button ? .event : .state
    case "state": return .state
    case "event": return .event
    case let other?: throw decoder.mistake("kind", "'\(other)' must be \"state\" or \"event\"")
    }
  }
}
