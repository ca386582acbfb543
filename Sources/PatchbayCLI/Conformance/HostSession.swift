import CProcessControl
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One `patchbay-plugin-host --conformance` child and what it reported: its report lines as
/// they came, how long each callback took, and how the process ended. The checker survives
/// whatever the plugin does, because the plugin runs in this child.
struct HostSession: Sendable {
  enum Ending: Sendable, Equatable {
    /// The host reported its last line and exited normally.
    case done
    /// A callback did not return within the deadline; the checker killed the host.
    case hung(callback: String, milliseconds: Int)
    case exited(status: Int32)
    case signaled(Int32)
  }

  /// One report line, split into its fields (the first is the kind: begin, end, violation...).
  var events: [[String]] = []
  /// Callbacks and how long they took (milliseconds), in order.
  var durations: [(callback: String, milliseconds: Int)] = []
  var ending: Ending = .done
  /// The callback that had begun and not ended when the host died, if any.
  var openCallback: String?

  var finished: Bool { ending == .done }

  func events(_ kind: String) -> [[String]] { events.filter { $0.first == kind } }

  /// The `end` line of a callback: its status and the plugin's message.
  func ended(_ callback: String) -> (status: Int32, message: String)? {
    guard let line = events("end").first(where: { $0.count >= 4 && $0[1] == callback }) else { return nil }
    return (Int32(line[2]) ?? 0, line[3])
  }

  /// Runs `host --conformance ARGUMENTS` and reads its report on fd 3 until it ends. A callback
  /// open for longer than `hangDeadline` seconds ends the run (the host is killed, as the hub
  /// would kill a hung instance), and so does a run longer than `overallDeadline`.
  static func run(host: String, arguments: [String], hangDeadline: Double, overallDeadline: Double) -> HostSession {
    var session = HostSession()
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else {
      session.ending = .exited(status: 127)
      return session
    }
    let (reading, writing) = (pipeEnds[0], pipeEnds[1])
    // Only the child's dup on fd 3 must stay open in it.
    _ = fcntl(reading, F_SETFD, FD_CLOEXEC)
    _ = fcntl(writing, F_SETFD, FD_CLOEXEC)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, writing, 3)
    // The plugin's own output would mix with the report (`--json` on stdout): it goes nowhere.
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([host, "--conformance"] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, host, &actions, nil, argv, environ)
    close(writing)
    defer { close(reading) }
    guard spawned == 0 else {
      session.ending = .exited(status: 127)
      session.events.append(["failed", "spawn", "0", "cannot run \(host): \(String(cString: strerror(spawned)))"])
      return session
    }

    let started = Self.now()
    var open: (name: String, since: Double)?
    var pending = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    var killedFor: Ending?
    var reaped = false
    reading: while true {
      let now = Self.now()
      var wait = overallDeadline - (now - started)
      if let open { wait = min(wait, hangDeadline - (now - open.since)) }
      if wait <= 0 {
        if let open {
          killedFor = .hung(callback: open.name, milliseconds: Int(((now - open.since) * 1000).rounded()))
        } else {
          killedFor = .hung(callback: "(between callbacks)", milliseconds: Int(((now - started) * 1000).rounded()))
        }
        // SIGTERM first: the host answers it by taking the plugin's child processes along.
        kill(pid, SIGTERM)
        reaped = Self.reap(pid, within: 1)
        if !reaped { kill(pid, SIGKILL) }
        break reading
      }
      var poller = pollfd(fd: reading, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(min(wait, 3600) * 1000) + 1)
      if ready < 0 && errno == EINTR { continue }
      guard ready > 0 else { continue }
      let count = read(reading, &buffer, buffer.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break reading }
      pending += buffer[0..<count]
      while let newline = pending.firstIndex(of: 10) {
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        session.events.append(fields)
        switch fields.first {
        case "begin" where fields.count >= 2:
          open = (fields[1], Self.now())
        case "end" where fields.count >= 2:
          if let begun = open {
            session.durations.append((begun.name, Int(((Self.now() - begun.since) * 1000).rounded())))
          }
          open = nil
        default: break
        }
      }
    }
    var status: Int32 = 0
    while !reaped && waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    session.openCallback = open?.name
    if let killedFor {
      session.ending = killedFor
    } else if status & 0x7f != 0 {
      session.ending = .signaled(status & 0x7f)
    } else if (status >> 8) & 0xff != 0 || session.events("done").isEmpty {
      session.ending = .exited(status: (status >> 8) & 0xff)
    } else {
      session.ending = .done
    }
    return session
  }

  /// Whether `pid` ended (and was reaped) within `seconds`.
  private static func reap(_ pid: pid_t, within seconds: Double) -> Bool {
    // Woken by the process's end (a pidfd), not by polling.
    guard pc_wait_for_end(pid, Int32(seconds * 1000)) == 1 else { return false }
    var status: Int32 = 0
    return waitpid(pid, &status, 0) == pid
  }

  private static func now() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }
}
