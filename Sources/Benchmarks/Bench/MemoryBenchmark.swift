import Foundation

/// Figure 6b: what a whole home configuration costs in memory. One hub with every bundled
/// plugin against its simulator, plus schedule, mqtt (on the run's broker) and a C plugin
/// (bench-probe), idle: RSS and PSS of the hub and of each plugin process, and the PSS total.
/// PSS is the fair share: the Swift runtime, mapped by every Swift process, counts once in the
/// total instead of once per process as RSS would.
struct MemoryBenchmark {
  struct Footprint {
    var name: String
    var plugin: String
    var rssMiB: Double
    var pssMiB: Double
    /// What its RSS is made of (largest mappings).
    var largest: String
  }

  struct Result {
    var hub: Footprint
    var plugins: [Footprint]
    var totalPSSMiB: Double { hub.pssMiB + plugins.reduce(0) { $0 + $1.pssMiB } }
  }

  let tools: BenchTools

  func run(broker: MosquittoBroker?) throws -> Result {
    let directory = try tools.directory("memory")
    let plugins = BundledPlugin.all
    let simulators = try SimulatorSet(plugins, tools: tools, directory: directory)
    defer { simulators.stop() }
    var config = simulators.config(plugins)
    config += """
      [instances.clock]
      plugin = "schedule"
      latitude = 52.52
      longitude = 13.40
      [[instances.clock.triggers]]
      name = "weekday_morning"
      cron = "30 6 * * mon-fri"

      """
    if let broker {
      config += """
        [instances.mqtt]
        plugin = "mqtt"
        host = "127.0.0.1"
        port = \(broker.port)
        [[instances.mqtt.topics]]
        name = "lamp"
        type = "bool"
        subscribe = "home/lamp/state"
        publish = "home/lamp/set"

        """
    }
    config += ProbeConfig.instance("c_plugin", .sink)
    let hub = try HubProcess(tools: tools, directory: directory, config: config)
    defer { hub.stop() }
    let status = try hub.waitUntilRunning()
    usleep(2_000_000)  // connections made, start-up work settled
    func measure(_ name: String, _ plugin: String, _ pid: Int32) -> Footprint? {
      guard let memory = ProcessStats.memory(pid) else { return nil }
      return Footprint(
        name: name, plugin: plugin, rssMiB: memory.rss, pssMiB: memory.pss,
        largest: ProcessStats.describe(ProcessStats.largestMappings(pid, count: 4)))
    }
    guard let hubMemory = measure("hub", "patchbay run", hub.pid) else {
      throw BenchError("no memory figures for the hub")
    }
    let processes = status.instances.compactMap { instance in
      instance.pid.flatMap { measure(instance.name, instance.plugin, $0) }
    }
    return Result(hub: hubMemory, plugins: processes.sorted { $0.name < $1.name })
  }
}
