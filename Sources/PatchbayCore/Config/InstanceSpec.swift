import PatchbayValues

/// How the supervisor treats one instance. Times in seconds.
public struct SupervisionSettings: Sendable, Equatable, Codable {
  public var restart: RestartPolicy = .permanent
  public var backoffInitial: Double = 0.5
  public var backoffMax: Double = 30
  /// More than `maxRestarts` restarts within `restartWindow` seconds marks the instance failed.
  public var maxRestarts: Int = 5
  public var restartWindow: Double = 60
  /// A run this long resets the restart count and the back-off.
  public var stableAfter: Double = 30
  public var heartbeatInterval: Double = 2
  /// No heartbeat answer for this long: the process is killed and treated as crashed.
  public var hangTimeout: Double = 10
  /// stop, then SIGTERM after this long, then SIGKILL after as long again.
  public var stopTimeout: Double = 5
  public var memoryLimitMB: Int = 512
  public var openFiles: Int = 256
  /// The instance's cgroup limits (under systemd): everything it starts counts, together.
  /// Defaults a normal plugin never meets; they stop a runaway, not a plugin.
  public var memoryMaxMB: Int = 1024
  public var pidsMax: Int = 1024
  public var cpuWeight: Int = 100
  /// Bound of each event input queue.
  public var queueSize: Int = 1024

  public init() {}
}

/// One `[instances.NAME]` section.
public struct InstanceSpec: Sendable, Equatable, Codable {
  public var name: String
  public var plugin: String
  public var logLevel: String
  public var supervision: SupervisionSettings
  /// The plugin's own keys, handed over as a JSON object.
  public var pluginConfig: JSONValue
  /// The file the section came from.
  public var file: String
  /// `[instances.NAME.sandbox]`: what the instance may touch beyond its defaults.
  public var sandbox = SandboxSettings()
  /// `room = "..."`: where the instance's devices are, for the dashboard's household view. Not
  /// part of `identity`: moving a lamp to another room restarts nothing.
  public var room: String? = nil

  public init(
    name: String, plugin: String, logLevel: String, supervision: SupervisionSettings, pluginConfig: JSONValue,
    file: String, sandbox: SandboxSettings = SandboxSettings()
  ) {
    self.name = name
    self.plugin = plugin
    self.logLevel = logLevel
    self.supervision = supervision
    self.pluginConfig = pluginConfig
    self.file = file
    self.sandbox = sandbox
  }

  /// Everything that, when changed, needs a new process (reload compares this).
  public var identity: String {
    "\(plugin)|\(logLevel)|\(supervision)|\(pluginConfig.description)|\(sandbox)"
  }
}
