#if canImport(Glibc)
  import Glibc
#endif

/// How a plugin process ended, as the supervisor and `status` report it.
public enum ExitReason: Sendable, Equatable, CustomStringConvertible {
  case exited(code: Int32)
  case signaled(Int32)
  /// Killed by the supervisor because it stopped answering heartbeats.
  case hung(seconds: Double)
  /// The process sent a frame that broke the wire protocol; it was killed.
  case protocolViolation(String)

  /// Decodes a `waitpid` status (the W* macros are not visible from Swift).
  package init(waitStatus status: Int32) {
    if status & 0x7f == 0 {
      self = .exited(code: (status >> 8) & 0xff)
    } else {
      self = .signaled(status & 0x7f)
    }
  }

  /// A clean exit: the plugin was told to stop, or ended with code 0.
  public var isNormal: Bool { self == .exited(code: 0) }

  public var description: String {
    switch self {
    // The status alone explains nothing: the host says why it ends over the wire first
    // (`InstanceSupervisor`), and a plugin can call exit() with any number.
    case .exited(let code): return "the plugin exited with status \(code)"
    case .signaled(let signal): return "killed by signal \(Self.signalName(signal))"
    case .hung(let seconds): return "stopped answering heartbeats for \(Int(seconds)) s and was killed"
    case .protocolViolation(let detail): return "broke the wire protocol (\(detail)) and was killed"
    }
  }

  public static func signalName(_ signal: Int32) -> String {
    let names: [Int32: String] = [
      SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
      SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
      SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
      SIGSYS: "SIGSYS",
    ]
    return names[signal] ?? "\(signal)"
  }
}
