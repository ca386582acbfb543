import PatchbayHub
import PatchbayRecorder
import Prometheus

/// The hub's counters in Prometheus' text format, through swift-prometheus. patchbay-web counts
/// nothing itself: each scrape copies one `status` answer into a registry of its own, so an
/// instance or route that a reload removed is gone from the next scrape (a process-wide registry,
/// as swift-metrics' `MetricsSystem` keeps, would report it forever), and a counter the hub reset
/// (a restart) shows its new value rather than a sum.
enum MetricsExposition {
  static func render(_ status: HubStatus?, recorder: HistoryRecorder? = nil) -> String {
    let registry = PrometheusCollectorRegistry()
    gauge(registry, "hub", "up", "1 when patchbay-web reaches the hub's control socket.").set(to: status == nil ? 0 : 1)
    // The recorder is this process's own: counted here, whether or not the hub is up.
    if let recorder {
      let counters = recorder.counters
      counter(registry, "recorder", "written", "Values written into the history since patchbay-web started.")
        .increment(by: Int64(counters.written))
      counter(
        registry, "recorder", "dropped",
        "Values dropped from the history (its queue full, the disk slow, full or failing); routes are unaffected."
      ).increment(by: Int64(counters.dropped))
      gauge(registry, "recorder", "database", unit: "bytes", "Bytes of the history database on disk.")
        .set(to: Double(recorder.databaseBytes))
    }
    guard let status else { return registry.emitToString() }
    gauge(registry, "hub", "uptime", unit: "seconds", "Seconds since the hub started.").set(to: status.uptimeSeconds)
    // The hub reads the memory figures itself (this process may not see its /proc entries).
    if let bytes = status.residentBytes {
      gauge(registry, "hub", "resident_memory", unit: "bytes", "Resident memory of the hub process.")
        .set(to: Double(bytes))
    }
    for instance in status.instances {
      let labels = [("instance", instance.name), ("plugin", instance.plugin)]
      func count(_ name: String, _ help: String, _ value: Int) {
        counter(registry, "instance", name, help, labels).increment(by: Int64(max(0, value)))
      }
      func level(_ name: String, unit: String = "", _ help: String, _ value: Int) {
        gauge(registry, "instance", name, unit: unit, help, labels).set(to: Double(value))
      }
      level("up", "1 while the instance's plugin process runs.", instance.phase == .running ? 1 : 0)
      count("restarts", "Restarts of the instance's process.", instance.restarts)
      count("messages_in", "Values delivered to the instance.", instance.messagesIn)
      count("messages_out", "Values the instance published.", instance.messagesOut)
      level("queue", unit: "depth", "Values waiting in the instance's input queue.", instance.queueDepth)
      count("drops", "Values dropped because the instance's queue was full.", instance.drops)
      count(
        "backpressure_waits", "Times the instance's publishing waited for a full consumer.",
        instance.backPressureWaits)
      count("refusals", "Plugin calls its host refused.", instance.refusals)
      count("publish_busy", "Event publishes its plugin host answered PB_ERR_BUSY.", instance.publishBusy)
      count("publish_waits", "Publishes that waited in the plugin host for room.", instance.publishWaits)
      if let bytes = instance.residentBytes {
        level("resident_memory", unit: "bytes", "Resident memory of the instance's plugin-host process.", bytes)
      }
    }
    for route in status.routes {
      counter(
        registry, "route", "values", "Values the route passed on to its targets.",
        [("route", route.id), ("key", route.key)]
      ).increment(by: Int64(max(0, route.values)))
      counter(
        registry, "route", "drops", "Values dropped on the route because a target's queue was full.",
        [("route", route.id), ("key", route.key)]
      ).increment(by: Int64(max(0, route.drops)))
    }
    for scene in status.scenes {
      counter(
        registry, "scene", "activations", "Activations of the scene since the hub started.", [("scene", scene.name)]
      ).increment(by: Int64(max(0, scene.activations)))
    }
    return registry.emitToString()
  }

  /// `patchbay_SUBSYSTEM_NAME_total`.
  private static func counter(
    _ registry: PrometheusCollectorRegistry, _ subsystem: String, _ name: String, _ help: String,
    _ labels: [(String, String)] = []
  ) -> Counter {
    registry.makeCounter(
      descriptor: MetricNameDescriptor(
        namespace: "patchbay", subsystem: subsystem, metricName: name, unitName: "total", helpText: help),
      labels: labels)
  }

  /// `patchbay_SUBSYSTEM_NAME[_UNIT]`.
  private static func gauge(
    _ registry: PrometheusCollectorRegistry, _ subsystem: String, _ name: String, unit: String = "", _ help: String,
    _ labels: [(String, String)] = []
  ) -> Gauge {
    registry.makeGauge(
      descriptor: MetricNameDescriptor(
        namespace: "patchbay", subsystem: subsystem, metricName: name, unitName: unit, helpText: help),
      labels: labels)
  }
}
