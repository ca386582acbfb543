import Foundation
import PatchbayHub

/// The human form of `patchbay status`.
enum StatusTable {
  static func render(_ status: HubStatus) -> String {
    var lines = ["patchbay \(status.version), pid \(status.pid), up \(duration(status.uptimeSeconds))", ""]
    let header = [
      "INSTANCE", "PLUGIN", "STATE", "PID", "UPTIME", "IN", "OUT", "QUEUE", "DROPS", "WAITS", "BUSY", "HOSTWAITS",
      "REFUSED", "RESTARTS", "PEER",
    ]
    var rows = [header]
    for instance in status.instances {
      rows.append([
        instance.name, instance.plugin, instance.phase.rawValue, instance.pid.map(String.init) ?? "-",
        instance.uptimeSeconds.map(duration) ?? "-", String(instance.messagesIn), String(instance.messagesOut),
        String(instance.queueDepth), String(instance.drops), String(instance.backPressureWaits),
        String(instance.publishBusy), String(instance.publishWaits), String(instance.refusals),
        String(instance.restarts),
        instance.peer ?? "-",
      ])
    }
    let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
      lines.append(row.enumerated().map { $1.padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }.joined())
    }
    for instance in status.instances {
      for (port, value) in (instance.shown ?? [:]).sorted(by: { $0.key < $1.key }) {
        lines.append("\(instance.name): \(port) \(value)")
      }
      if let failure = instance.failure {
        let since = instance.failedSince.map { ISO8601DateFormatter().string(from: $0) } ?? "?"
        lines.append("\(instance.name): failed since \(since): \(failure)")
      } else if let exit = instance.lastExit {
        lines.append("\(instance.name): last exit: \(exit)")
      }
    }
    lines.append("")
    lines.append("ROUTES")
    for route in status.routes {
      let loops = route.loopDrops.map { $0 > 0 ? "  loop drops \($0)" : "" } ?? ""
      lines.append("  \(route.key)  \(route.id)  values \(route.values)  drops \(route.drops)\(loops)")
    }
    for inactive in status.inactiveRoutes { lines.append("  inactive: \(inactive)") }
    if !status.scenes.isEmpty {
      lines.append("")
      lines.append("SCENES")
      for scene in status.scenes {
        lines.append("  \(scene.name)  \(scene.ports) ports  activated \(scene.activations) times")
      }
    }
    return lines.joined(separator: "\n")
  }

  static func duration(_ seconds: Double) -> String {
    let total = Int(seconds)
    if total < 60 { return "\(total)s" }
    if total < 3600 { return "\(total / 60)m\(total % 60)s" }
    return "\(total / 3600)h\(total % 3600 / 60)m"
  }
}
