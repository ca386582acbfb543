// patchbay-plugin-host: runs exactly one plugin instance (or describes one library) for the
// hub, which started it with one end of a SOCK_SEQPACKET socketpair as file descriptor 3.
//
// Usage: patchbay-plugin-host [--memory-limit-mb N] [--open-files N]
//        patchbay-plugin-host --conformance ...   (run by `patchbay plugin test`; see ConformanceRun)
import CPatchbayPlugin
import CProcessControl
import PatchbayWire

#if canImport(Glibc)
  import Glibc
#endif

// A crash in the plugin ends this process by its signal, for the hub to see and restart; the
// Swift runtime's handler (installed before this line runs) would catch it, and a raised
// SIGSEGV would let the process run on as if nothing happened.
pc_reset_fatal_signals()

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "--conformance" {
  // A child of the checker, not of the hub: the same containment, no hub socket.
  _ = pc_become_subreaper()
  pc_install_host_exit_guards()
  _ = pc_set_parent_death_signal(SIGTERM)
  ConformanceRun.main(Array(CommandLine.arguments.dropFirst(2)))
}

let hubDescriptor: Int32 = 3

// Everything the plugin starts dies with this process: orphans are reparented here (a
// subreaper) and killed on every way out (exit, SIGTERM, a plugin's own exit()).
_ = pc_become_subreaper()
pc_install_host_exit_guards()
// Die with the hub: a SIGKILLed hub must not leave plugin processes behind. SIGTERM, not
// SIGKILL, so that the guard above takes the plugin's descendants along.
_ = pc_set_parent_death_signal(SIGTERM)
if getppid() == 1 { hostExit(.orphaned) }

ResourceLimits.apply(arguments: Array(CommandLine.arguments.dropFirst()))
// Before any thread exists (Landlock confines the calling thread and what it starts) and
// before the plugin is loaded: its constructors run confined too.
let sandbox = Sandbox(arguments: Array(CommandLine.arguments.dropFirst()))
let confinement = sandbox.apply()
if confinement.signals { pc_signals_reach_only_descendants() }

guard fcntl(hubDescriptor, F_GETFD) != -1 else {
  let text = "patchbay-plugin-host: started without the hub's socket on fd 3; it is run by `patchbay run`\n"
  _ = text.withCString { write(2, $0, strlen($0)) }
  hostExit(.usage)
}
// Not inherited by programs the plugin runs: they must not keep the hub's connection open.
_ = fcntl(hubDescriptor, F_SETFD, FD_CLOEXEC)
let socket = PacketSocket(descriptor: hubDescriptor)
let runtime = HostRuntime(socket: socket, ledger: InputLedger.attach())
runtime.outbox.send(HostMessage.hello(protocolVersion: WireProtocol.version, pid: getpid()).encode())
if sandbox.enabled {
  runtime.outbox.send(
    HostMessage.confined(
      landlockABI: UInt8(clamping: confinement.landlockABI), network: confinement.network,
      signals: confinement.signals, seccomp: confinement.seccomp
    ).encode())
  for problem in confinement.problems { runtime.log(UInt8(PB_LOG_WARNING), "sandbox: \(problem)") }
}

// The reader: every frame from the hub is untrusted; a bad one ends this process (the hub
// would never send it, so the channel cannot be trusted any more).
var helloSeen = false
// Several frames per system call under a flood; an input counts as taken only when the plugin
// context starts it (`InputLedger`), so frames read but not yet handled are the hub's to resend.
let receiver = FrameBatchReceiver()
while true {
  // The frames stay in the receiver's slots (no copies) until the next receive.
  for index in 0..<receiver.receive(from: socket) {
    switch receiver[index] {
    case .closed:
      // The hub is gone or closed our socket: stop the plugin politely, then leave.
      runtime.pluginQueue.sync { runtime.stop(exit: false) }
      hostExit(.done)
    case .oversized(let size):
      runtime.log(5, "hub sent an oversized frame (\(size) bytes); exiting")
      hostExit(.badFrameFromHub)
    case .frame(let frame):
      let message: HubMessage
      do throws(WireError) {
        message = try HubMessage.decode(frame)
      } catch {
        runtime.log(5, "hub sent a bad frame: \(error); exiting")
        hostExit(.badFrameFromHub)
      }
      if case .hello(let version) = message {
        guard version == WireProtocol.version else {
          runtime.log(5, "hub speaks wire protocol \(version), this host speaks \(WireProtocol.version)")
          hostExit(.badFrameFromHub)
        }
        helloSeen = true
        continue
      }
      guard helloSeen else {
        runtime.log(5, "hub sent \(message) before hello; exiting")
        hostExit(.badFrameFromHub)
      }
      runtime.handle(message)
    }
  }
}
