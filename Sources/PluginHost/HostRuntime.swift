import CPatchbayPlugin
import CSandbox
import Dispatch
import PatchbayCValues
import PatchbayValues
import PatchbayWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One plugin instance inside this process: the host services table the plugin calls, and
/// the plugin context (a serial queue) that runs every plugin callback one at a time. This
/// file holds the state; beside it, by concept: `+Lifecycle` (the hub's messages: load,
/// create, start, inputs, stop, retire), `+HostServices` (the table the plugin calls from any
/// thread: ports, publish, timers, config, faults) and `+Housekeeping` (the once-a-second
/// reports and the refusal budget).
final class HostRuntime: Sendable {
  enum Phase: Int {
    case empty, creating, created, started, stopping, stopped

    /// When a call came, for messages: "before start()", "after stop() returned".
    var when: String {
      switch self {
      case .empty: "before create()"
      case .creating: "during create()"
      case .created: "after create(), before start()"
      case .started: "after start()"
      case .stopping: "during stop()"
      case .stopped: "after stop() returned"
      }
    }
  }

  /// What the plugin's threads and the plugin context share: one lock over all of it.
  struct Shared {
    var phase = Phase.empty
    var ports: [PortDescriptor] = []
    var config = InstanceConfig(json: "{}")
    var logLevel: UInt8 = UInt8(PB_LOG_INFO)
    /// The plugin declared PB_PLUGIN_PUBLISH_BUSY (ABI 1.1): a full buffer answers PB_ERR_BUSY.
    var publishBusy = false
    var nextTimer: UInt64 = 1
    /// Timers scheduled and not yet fired, cancelled or swept at stop.
    var liveTimers: [UInt64: ABIPointer<TimerCallback>] = [:]
    /// Cancelled timers whose user data waits to be released on the plugin context.
    var cancelledTimers: [ABIPointer<TimerCallback>] = []
    /// Refusals of the plugin's calls (bad values, wrong port or state), and what the hub was told.
    var refusals: UInt64 = 0
    var refusalsReported: UInt64 = 0
    /// System calls the seccomp filter refused, as last told to the hub.
    var refusedCallsReported: UInt64 = 0
    /// The outbox's back-pressure totals the hub was last told.
    var pressureReported = HostOutbox.Pressure()
    var refusalLog = LogBudget(burst: 3, interval: 10)
    var pluginLog = LogBudget(burst: 200, interval: 10)
  }

  let socket: PacketSocket
  /// Everything sent to the hub goes through it, in order (see `HostOutbox`).
  let outbox: HostOutbox
  /// The plugin context: create, start, receive, stop, destroy and timers run here, in order.
  let pluginQueue = DispatchQueue(label: "patchbay.plugin-context")
  let shared = Mutex(Shared())
  /// The hops of the input the plugin is receiving, and the thread it receives on: given to
  /// what that thread publishes inside receive(). A publish from any other thread (a timer, the
  /// plugin's own thread) is not that input passed on and starts at 0, even while a receive()
  /// runs elsewhere: otherwise a source thread would inherit its echoes' hops and be cut.
  let receivingHops = Atomic<UInt8>(0)
  let receivingThread = Atomic<UInt>(0)
  /// Set by load(); read by the plugin context only (the lock is never contended).
  /// ABIPointer: the ABI calls the plugin's instance on the [plugin context] only.
  let loaded = Mutex<ABIPointer<LoadedPlugin>?>(nil)
  /// Strings handed to the plugin: the create args and what the config accessors return.
  let strings = RetainedStrings()
  /// ABIPointer: never written after it is built; the plugin reads it from any thread.
  let api = ABIPointer(HostRuntime.allocateAPI())
  /// Inputs taken and finished, in memory shared with the hub (see `InputLedger`).
  let ledger: InputLedger
  let housekeeping = DispatchQueue(label: "patchbay.host-housekeeping")
  /// Set only under `patchbay plugin test`: records callbacks and refused calls.
  let conformance: ConformanceObserver?

  init(socket: PacketSocket, ledger: InputLedger, conformance: ConformanceObserver? = nil) {
    self.socket = socket
    outbox = HostOutbox(socket: socket)
    self.ledger = ledger
    self.conformance = conformance
    scheduleHousekeeping()
  }

  // MARK: State shared with plugin threads

  var currentPhase: Phase { shared.withLock { $0.phase } }
  func setPhase(_ new: Phase) { shared.withLock { $0.phase = new } }

  /// A line the plugin logs itself, within its budget (a plugin logging in a loop is summarised).
  func pluginLog(_ level: UInt8, _ message: String) {
    guard level >= shared.withLock({ $0.logLevel }) else { return }
    guard shared.withLock({ $0.pluginLog.admit("plugin log", now: Self.now()) }) else { return }
    log(level, message)
  }

  func log(_ level: UInt8, _ message: String) {
    guard level >= shared.withLock({ $0.logLevel }) else { return }
    outbox.send(HostMessage.log(level: level, message: String(message.prefix(8192))).encode())
  }

}
