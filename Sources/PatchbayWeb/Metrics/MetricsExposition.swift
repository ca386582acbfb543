import PatchbayHub

/// The hub's counters in Prometheus' text exposition format (version 0.0.4), written by hand:
/// a few families, all derived from one `status` answer.
enum MetricsExposition {
  static func render(_ status: HubStatus?) -> String {
    var text = ""
    func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
      text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
      for sample in samples { text += "\(name)\(sample.labels) \(sample.value)\n" }
    }
    family(
      "patchbay_hub_up", "gauge", "1 when patchbay-web reaches the hub's control socket.",
      [("", status == nil ? "0" : "1")])
    guard let status else { return text }
    family(
      "patchbay_hub_uptime_seconds", "gauge", "Seconds since the hub started.", [("", number(status.uptimeSeconds))])
    let instances = status.instances
    func perInstance(_ value: (InstanceStatus) -> Int) -> [(labels: String, value: String)] {
      instances.map { (labels(["instance": $0.name, "plugin": $0.plugin]), String(value($0))) }
    }
    family(
      "patchbay_instance_up", "gauge", "1 while the instance's plugin process runs.",
      perInstance { $0.phase == .running ? 1 : 0 })
    family(
      "patchbay_instance_restarts_total", "counter", "Restarts of the instance's process.", perInstance(\.restarts))
    family(
      "patchbay_instance_messages_in_total", "counter", "Values delivered to the instance.", perInstance(\.messagesIn))
    family(
      "patchbay_instance_messages_out_total", "counter", "Values the instance published.", perInstance(\.messagesOut))
    family(
      "patchbay_instance_queue_depth", "gauge", "Values waiting in the instance's input queue.",
      perInstance(\.queueDepth))
    family(
      "patchbay_instance_drops_total", "counter", "Values dropped because the instance's queue was full.",
      perInstance(\.drops))
    family(
      "patchbay_instance_backpressure_waits_total", "counter",
      "Times the instance's publishing waited for a full consumer.", perInstance(\.backPressureWaits))
    family("patchbay_instance_refusals_total", "counter", "Plugin calls its host refused.", perInstance(\.refusals))
    family(
      "patchbay_route_drops_total", "counter", "Values dropped on the route because a target's queue was full.",
      status.routes.map { (labels(["route": $0.id, "key": $0.key]), String($0.drops)) })
    family(
      "patchbay_scene_activations_total", "counter", "Activations of the scene since the hub started.",
      status.scenes.map { (labels(["scene": $0.name]), String($0.activations)) })
    return text
  }

  static func labels(_ pairs: [String: String]) -> String {
    "{" + pairs.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(escape($0.value))\"" }.joined(separator: ",") + "}"
  }

  /// Label values escape backslash, double quote and line feed.
  static func escape(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
  }

  static func number(_ value: Double) -> String { value.isFinite ? String(value) : "NaN" }
}
