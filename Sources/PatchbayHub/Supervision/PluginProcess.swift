import CProcessControl
import Foundation
import PatchbayCore
import PatchbayValues
import PatchbayWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One `patchbay-plugin-host` child with its end of the socketpair as fd 3. A reader thread
/// decodes its frames (untrusted: a bad frame kills it); a waiter thread reaps it.
final class PluginProcess: PluginChannel {
  let pid: pid_t
  let socket: PacketSocket
  /// `PATCHBAY_INSTANCE=name` in the host's environment, inherited by whatever the plugin
  /// starts: how the hub (a subreaper) recognises the instance's escaped descendants.
  let marker: String
  /// The input ledger shared with the host (`pc_input_ledger`); read after it died.
  private let ledger: InputLedgerPage?
  /// Strong, not weak (issue 44): a weak reference gives its object a side table, and every
  /// retain and release of a supervisor then took the slow path, several per hop. The cycle
  /// ends at the exit: the supervisor lets go of its process, the process's threads end.
  private let delegate: any PluginChannelDelegate
  private let readerDone = DispatchSemaphore(value: 0)
  /// Why the hub ended it (hung, a protocol violation), and what of the plugin it swept up.
  private let verdict = Mutex<(violation: ExitReason?, escapedDescendants: Int, reapedZombies: Int)>((nil, 0, 0))
  /// The instance's cgroup, where the hub has them (see `InstanceCgroups`).
  private let cgroup: String?
  let containment: String?

  /// Its standard output and error, read by the hub (nil: they go to /dev/null).
  private let output: PluginOutput?

  private init(
    pid: pid_t, socket: PacketSocket, marker: String, ledger: InputLedgerPage?, output: PluginOutput?,
    cgroup: String?, containment: String?, delegate: any PluginChannelDelegate
  ) {
    self.output = output
    self.cgroup = cgroup
    self.containment = containment
    self.pid = pid
    self.socket = socket
    self.marker = marker
    self.ledger = ledger
    self.delegate = delegate
  }

  deinit { ledger?.release() }

  /// The host's own count of inputs it took and finished (untrusted: the page is writable by
  /// the plugin), or nil without a ledger.
  var inputLedger: (taken: UInt64, finished: UInt64)? {
    guard let ledger else { return nil }
    return (ledger.taken, ledger.finished)
  }

  static func spawn(
    host: String, instance: String, arguments: [String], supervision: SupervisionSettings? = nil,
    delegate: any PluginChannelDelegate
  ) throws -> PluginProcess {
    let marker = "PATCHBAY_INSTANCE=\(instance)"
    let spawned = SpawnThread.shared.run { () -> Result<Spawned, SocketError> in
      do throws(SocketError) {
        return .success(try spawnHost(host, arguments: arguments, marker: marker))
      } catch {
        return .failure(error)
      }
    }
    let child = try spawned.get()
    // Into its cgroup before it loads the plugin: the host loads nothing until the hub's load
    // message, which is sent after this returns, so no go-ahead of its own is needed (and
    // posix_spawn, unlike clone3, has no CLONE_INTO_CGROUP).
    // Port probes (no supervision settings) are gone in a moment: no cgroup for them.
    let cgroups = supervision == nil ? nil : InstanceCgroups.shared
    let cgroup = supervision.flatMap { cgroups?.place(child.pid, instance: instance, settings: $0) }
    let containment: String? =
      if let supervision {
        if let cgroups, let cgroup {
          cgroups.description(of: cgroup, settings: supervision)
        } else {
          "rlimits only (memory_limit_mb \(supervision.memoryLimitMB) per process): "
            + (InstanceCgroups.unavailableReason ?? "its cgroup could not be set up")
        }
      } else { nil }
    let process = PluginProcess(
      pid: child.pid, socket: child.socket, marker: marker, ledger: child.ledger, output: child.output, cgroup: cgroup,
      containment: containment, delegate: delegate)
    process.startThreads()
    return process
  }

  /// Runs on the spawner thread only (see `SpawnThread`).
  private struct Spawned: Sendable {
    var pid: pid_t
    var socket: PacketSocket
    var ledger: InputLedgerPage?
    var output: PluginOutput?
  }

  private static func spawnHost(_ host: String, arguments: [String], marker: String) throws(SocketError) -> Spawned {
    let (hubEnd, hostEnd) = try PacketSocket.pair()
    let ledger = InputLedgerPage.create()
    let ledgerDescriptor = ledger?.descriptor ?? -1
    defer { if ledgerDescriptor >= 0 { close(ledgerDescriptor) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, hostEnd.descriptor, 3)
    if ledgerDescriptor >= 0 { posix_spawn_file_actions_adddup2(&actions, ledgerDescriptor, 4) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    // Its standard output and error are pipes the hub reads (`PluginOutput`), never the hub's own.
    let output = PluginOutput()
    if let output {
      posix_spawn_file_actions_adddup2(&actions, output.hostEnds.stdout, 1)
      posix_spawn_file_actions_adddup2(&actions, output.hostEnds.stderr, 2)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    let argv = ([host] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var environment = ProcessInfo.processInfo.environment.filter { $0.key != "PATCHBAY_INSTANCE" }
      .map { "\($0.key)=\($0.value)" }
    environment.append(marker)
    let envp = environment.map { strdup($0) } + [nil]
    defer { envp.forEach { free($0) } }
    // Its own session (and so process group): a Ctrl-C or a group signal meant for the hub
    // must not kill plugins behind the supervisor's back (they still die with the hub,
    // PR_SET_PDEATHSIG), and nothing the plugin forks can be in the hub's session, which is
    // how the hub tells the zombies it inherits from its own children (`InheritedChildren`).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A clean signal state: a child inherits the spawning thread's mask (the hub's threads
    // block almost everything, which left SIGTERM blocked in every host) and the hub's ignored
    // signals (SIGTERM, SIGINT, SIGHUP: the hub takes them through Dispatch sources).
    pc_spawnattr_clean_signals(&attributes)
    pc_spawnattr_new_session(&attributes)
    var pid: pid_t = 0
    var status: Int32 = 0
    _ = InheritedChildren.spawnHost {
      status = posix_spawn(&pid, host, &actions, &attributes, argv, envp)
      return status == 0 ? pid : nil
    }
    // The host's end must not stay open here: a host that closes its socket would not look
    // closed to the hub (the hub would never read end-of-stream).
    hostEnd.close()
    guard status == 0 else {
      output?.discard()
      hubEnd.close()
      ledger?.page.release()
      throw SocketError(operation: "spawning \(host)", errno: status)
    }
    return Spawned(pid: pid, socket: hubEnd, ledger: ledger?.page, output: output)
  }

  private func startThreads() {
    // Held by the output thread until the plugin's pipes close (no weak self: see `delegate`).
    output?.start(name: "patchbay-output-\(pid)") { [self] stream, line in
      delegate.pluginChannel(self, wrote: line, on: stream.rawValue)
    }
    let reader = Thread { [self] in readLoop() }
    reader.name = "patchbay-reader-\(pid)"
    reader.start()
    let waiter = Thread { [self] in waitLoop() }
    waiter.name = "patchbay-waiter-\(pid)"
    waiter.start()
  }

  private func readLoop() {
    defer { readerDone.signal() }
    let receiver = FrameBatchReceiver()
    // Kept between reads (its capacity too): a read costs no allocation.
    var messages: [HostMessage] = []
    while true {
      let count = receiver.receive(from: socket)
      // Most reads hold one frame (no flood): no batch for it. Decoded where it was received.
      if count == 1, case .frame(let frame) = receiver[0], let message = try? HostMessage.decode(frame) {
        delegate.pluginChannel(self, received: message)
        continue
      }
      // The messages of one read go to the supervisor together (what they route is sent per
      // consumer together); what came before a bad frame is still delivered.
      messages.removeAll(keepingCapacity: true)
      var ending: (() -> Void)?
      reading: for index in 0..<count {
        switch receiver[index] {
        case .closed:
          // A host ends its socket by ending; one that closed it and runs on can no longer be
          // supervised (no inputs, no heartbeats): give it a moment to exit, then kill it.
          ending = { [self] in
            if pc_wait_for_end(pid, 1000) == 0 { kill(because: "closed its connection to the hub but kept running") }
          }
          break reading
        case .oversized(let size):
          ending = { [self] in kill(because: WireError.oversized(size).description) }
          break reading
        case .frame(let frame):
          do throws(WireError) {
            messages.append(try HostMessage.decode(frame))
          } catch {
            ending = { [self] in kill(because: error.description) }
            break reading
          }
        }
      }
      if !messages.isEmpty { delegate.pluginChannel(self, received: messages) }
      if let ending {
        ending()
        return
      }
    }
  }

  /// How many escaped descendants of the plugin were killed after the host ended.
  var escapedDescendantsKilled: Int { verdict.withLock { $0.escapedDescendants } }

  /// How many ended children of the plugin's (zombies it never reaped) the hub reaped.
  var inheritedZombiesReaped: Int { verdict.withLock { $0.reapedZombies } }

  /// The supervisor killed it for not answering; report that instead of SIGKILL.
  func markHung(seconds: Double) {
    verdict.withLock { $0.violation = .hung(seconds: seconds) }
  }

  private func kill(because detail: String) {
    verdict.withLock { $0.violation = .protocolViolation(detail) }
    terminate()
  }

  /// Ends a process that cannot be trusted any more: SIGTERM first, which the host answers by
  /// killing what the plugin started (SIGKILL would leave those to be found by the hub), then
  /// SIGKILL if it is still there a second later.
  func terminate() {
    _ = Glibc.kill(pid, SIGTERM)
    let pid = pid
    Thread.detachNewThread {
      if pc_wait_for_end(pid, 1000) == 0 { _ = Glibc.kill(pid, SIGKILL) }
    }
  }

  private func waitLoop() {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    InheritedChildren.hostReaped(pid)
    // What the plugin started and the host could not take down with it (the host was
    // SIGKILLed) was reparented to the hub, a subreaper under `patchbay run`: end it too.
    var escaped = marker.withCString { pc_kill_marked_children($0, 0) }
    // And whatever is left in its cgroup, marker or not: cgroup.kill misses nothing.
    if let cgroup, let cgroups = InstanceCgroups.shared { escaped += Int32(cgroups.killAll(in: cgroup)) }
    if escaped > 0 { verdict.withLock { $0.escapedDescendants = Int(escaped) } }
    // The zombies it left (children it never waited for) are the hub's now: reaped at once.
    let reaped = InheritedChildren.reap()
    if reaped > 0 { verdict.withLock { $0.reapedZombies = reaped } }
    // What it wrote to its standard output and error before it ended, to the end.
    output?.finish(within: 2)
    // Let the reader deliver what the process sent before it ended (its last log lines).
    if readerDone.wait(timeout: .now() + 2) == .timedOut {
      // Something else (a grandchild) holds the other end open: stop reading anyway.
      socket.shutdown()
      readerDone.wait()
    }
    socket.close()
    let reason = verdict.withLock { $0.violation } ?? ExitReason(waitStatus: status)
    delegate.pluginChannel(self, exited: reason)
  }

  // Encoded on the stack, sent from there: no heap allocation per input (issue 44).
  @discardableResult
  func send(_ message: HubMessage) -> Bool { message.withEncoded { socket.send($0) } }

  /// Sends without blocking on a full socket.
  func trySend(_ message: HubMessage) -> PacketSocket.SendResult { message.withEncoded { socket.trySend($0) } }

  /// The hop's input, written straight onto the stack (`PacketSocket.trySendInput`).
  func trySendInput(port: UInt32, value: Value, hops: UInt8) -> PacketSocket.SendResult {
    socket.trySendInput(port: port, value: value, hops: hops)
  }

  /// Several at once: one `sendmmsg`, and one wake-up of the host for all of them.
  func trySend(_ messages: [HubMessage]) -> Int? {
    HubMessage.withEncoded(messages) { socket.trySend(joined: $0, lengths: $1) }
  }

  func send(_ messages: [HubMessage]) -> Int? {
    HubMessage.withEncoded(messages) { socket.send(joined: $0, lengths: $1) }
  }

  func signal(_ number: Int32) { _ = Glibc.kill(pid, number) }
}
