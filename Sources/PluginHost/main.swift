// patchbay-plugin-host: runs exactly one plugin instance (or describes one library) for the
// hub, which started it with one end of a SOCK_SEQPACKET socketpair as file descriptor 3.
//
// Usage: patchbay-plugin-host [--memory-limit-mb N] [--open-files N]
import CProcessControl
import PatchbayWire

#if canImport(Glibc)
  import Glibc
#endif

let hubDescriptor: Int32 = 3

// Die with the hub: a SIGKILLed hub must not leave plugin processes behind.
_ = pc_set_parent_death_signal(SIGKILL)
if getppid() == 1 { exit(6) }

ResourceLimits.apply(arguments: Array(CommandLine.arguments.dropFirst()))

guard fcntl(hubDescriptor, F_GETFD) != -1 else {
  let text = "patchbay-plugin-host: started without the hub's socket on fd 3; it is run by `patchbay run`\n"
  _ = text.withCString { write(2, $0, strlen($0)) }
  exit(64)
}
let socket = PacketSocket(descriptor: hubDescriptor)
let runtime = HostRuntime(socket: socket)
socket.send(HostMessage.hello(protocolVersion: WireProtocol.version, pid: getpid()).encode())

// The reader: every frame from the hub is untrusted; a bad one ends this process (the hub
// would never send it, so the channel cannot be trusted any more).
var helloSeen = false
while true {
  switch socket.receive() {
  case .closed:
    // The hub is gone or closed our socket: stop the plugin politely, then leave.
    runtime.pluginQueue.sync { runtime.stop(exit: false) }
    exit(0)
  case .oversized(let size):
    runtime.log(5, "hub sent an oversized frame (\(size) bytes); exiting")
    exit(65)
  case .frame(let frame):
    let message: HubMessage
    do throws(WireError) {
      message = try HubMessage.decode(frame)
    } catch {
      runtime.log(5, "hub sent a bad frame: \(error); exiting")
      exit(65)
    }
    if case .hello(let version) = message {
      guard version == WireProtocol.version else {
        runtime.log(5, "hub speaks wire protocol \(version), this host speaks \(WireProtocol.version)")
        exit(65)
      }
      helloSeen = true
      continue
    }
    guard helloSeen else {
      runtime.log(5, "hub sent \(message) before hello; exiting")
      exit(65)
    }
    runtime.handle(message)
  }
}
