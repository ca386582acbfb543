import Foundation
import PatchbayWire

#if canImport(Glibc)
  import Glibc
#endif

/// What a plugin process reports, on its reader and waiter threads.
protocol PluginProcessDelegate: AnyObject, Sendable {
  func pluginProcess(_ process: PluginProcess, received message: HostMessage)
  func pluginProcess(_ process: PluginProcess, exited reason: ExitReason)
}

/// One `patchbay-plugin-host` child with its end of the socketpair as fd 3. A reader thread
/// decodes its frames (untrusted: a bad frame kills it); a waiter thread reaps it.
final class PluginProcess: @unchecked Sendable {
  let pid: pid_t
  let socket: PacketSocket
  private weak var delegate: (any PluginProcessDelegate)?
  private let readerDone = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var violation: ExitReason?

  private init(pid: pid_t, socket: PacketSocket, delegate: any PluginProcessDelegate) {
    self.pid = pid
    self.socket = socket
    self.delegate = delegate
  }

  static func spawn(host: String, arguments: [String], delegate: any PluginProcessDelegate) throws -> PluginProcess {
    let (hubEnd, hostEnd) = try PacketSocket.pair()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, hostEnd.descriptor, 3)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    let argv = ([host] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    // Its own process group: a Ctrl-C or a group signal meant for the hub must not kill
    // plugins behind the supervisor's back. They still die with the hub (PR_SET_PDEATHSIG).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)
    var pid: pid_t = 0
    let status = posix_spawn(&pid, host, &actions, &attributes, argv, environ)
    hostEnd.close()
    guard status == 0 else {
      hubEnd.close()
      throw SocketError(operation: "spawning \(host)", errno: status)
    }
    let process = PluginProcess(pid: pid, socket: hubEnd, delegate: delegate)
    process.startThreads()
    return process
  }

  private func startThreads() {
    let reader = Thread { [self] in readLoop() }
    reader.name = "patchbay-reader-\(pid)"
    reader.start()
    let waiter = Thread { [self] in waitLoop() }
    waiter.name = "patchbay-waiter-\(pid)"
    waiter.start()
  }

  private func readLoop() {
    defer { readerDone.signal() }
    while true {
      switch socket.receive() {
      case .closed:
        return
      case .oversized(let size):
        kill(because: WireError.oversized(size).description)
        return
      case .frame(let frame):
        do throws(WireError) {
          let message = try HostMessage.decode(frame)
          delegate?.pluginProcess(self, received: message)
        } catch {
          kill(because: error.description)
          return
        }
      }
    }
  }

  /// The supervisor killed it for not answering; report that instead of SIGKILL.
  func markHung(seconds: Double) {
    lock.withLock { violation = .hung(seconds: seconds) }
  }

  private func kill(because detail: String) {
    lock.withLock { violation = .protocolViolation(detail) }
    Glibc.kill(pid, SIGKILL)
  }

  private func waitLoop() {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    // Let the reader deliver what the process sent before it ended (its last log lines).
    if readerDone.wait(timeout: .now() + 2) == .timedOut {
      // Something else (a grandchild) holds the other end open: stop reading anyway.
      socket.shutdown()
      readerDone.wait()
    }
    socket.close()
    let reason = lock.withLock { violation } ?? ExitReason(waitStatus: status)
    delegate?.pluginProcess(self, exited: reason)
  }

  @discardableResult
  func send(_ message: HubMessage) -> Bool { socket.send(message.encode()) }

  /// Sends without blocking on a full socket.
  func trySend(_ message: HubMessage) -> PacketSocket.SendResult { socket.trySend(message.encode()) }

  func signal(_ number: Int32) { _ = Glibc.kill(pid, number) }
}
