import CSandbox

#if canImport(Glibc)
  import Glibc
#endif

/// The confinement the host puts itself in before the plugin is loaded (docs/architecture.md):
/// Landlock for files, TCP ports and signals, then a seccomp filter. Applied while the process
/// has one thread, from the hub's arguments: `--sandbox-read PATH`, `--sandbox-write PATH`,
/// `--sandbox-connect PORT`, `--sandbox-bind PORT` (each repeatable), `--sandbox-network any`,
/// `--sandbox-unix-sockets allow`, `--sandbox off`. Without `--sandbox-*` arguments nothing is confined (the hub always sends them).
struct Sandbox {
  var enabled = false
  var read: [String] = []
  var write: [String] = []
  var connect: [UInt16] = []
  var bind: [UInt16] = []
  var networkAny = false
  /// May create Unix sockets (and so connect to named ones: D-Bus, Avahi).
  var unixSockets = false

  /// What the host confirmed, for the hub's `status`.
  struct Outcome {
    var landlockABI: Int = 0
    var network = false
    var signals = false
    var seccomp = false
    var problems: [String] = []
  }

  /// The system's and the Swift runtime's library folders: read and execute.
  /// (And the system's programs, which a plugin may run: they inherit its confinement.)
  static let libraryFolders = [
    "/usr/bin", "/bin", "/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib", "/usr/lib/patchbay",
  ]
  /// What plugins commonly need to read: certificates, time zones, name resolution, randomness.
  static let systemFiles = [
    "/etc/ssl", "/usr/share/ca-certificates", "/usr/share/zoneinfo", "/etc/localtime", "/etc/resolv.conf",
    "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf", "/etc/services", "/etc/protocols",
    "/etc/ld.so.cache", "/dev/urandom", "/dev/random", "/proc/stat", "/proc/meminfo",
    "/proc/cpuinfo", "/sys/devices/system/cpu", "/usr/share/locale", "/usr/lib/locale",
  ]
  /// Read and write: the null device (no content to leak) and this process's own /proc
  /// (a thread's name in `comm`, its own limits; nothing of another process).
  static let systemWritable = ["/dev/null", "/proc/self"]

  init(arguments: [String]) {
    var index = 0
    while index + 1 < arguments.count {
      let value = arguments[index + 1]
      switch arguments[index] {
      case "--sandbox-read": enabled = true; read.append(value)
      case "--sandbox-write": enabled = true; write.append(value)
      case "--sandbox-connect": enabled = true; UInt16(value).map { connect.append($0) }
      case "--sandbox-bind": enabled = true; UInt16(value).map { bind.append($0) }
      case "--sandbox-network": enabled = true; networkAny = value == "any"
      case "--sandbox-unix-sockets": enabled = true; unixSockets = value == "allow"
      case "--sandbox": enabled = value != "off"
      default: break
      }
      index += 2
    }
  }

  /// The folder the Swift runtime was loaded from (a toolchain's when run from a build tree).
  static func swiftRuntimeFolder() -> String? {
    guard let name = sb_library_of_symbol("swift_retain") else { return nil }
    let path = String(cString: name)
    guard let slash = path.lastIndex(of: "/") else { return nil }
    return String(path[..<slash])
  }

  func apply() -> Outcome {
    var outcome = Outcome()
    guard enabled else { return outcome }
    let abi = sb_begin(networkAny ? 0 : 1)
    if abi > 0 {
      outcome.landlockABI = Int(abi)
      var executable = Self.libraryFolders
      if let runtime = Self.swiftRuntimeFolder() { executable.append(runtime) }
      for path in executable { _ = sb_allow_path(path, Int32(SB_READ_EXECUTE)) }
      for path in Self.systemFiles { _ = sb_allow_path(path, Int32(SB_READ)) }
      for path in Self.systemWritable { _ = sb_allow_path(path, Int32(SB_READ_WRITE)) }
      // The plugin's library is granted by the hub as a read path; it must map it executable.
      for path in read {
        let status = sb_allow_path(path, Int32(SB_READ_EXECUTE))
        if status != 0 { outcome.problems.append("read '\(path)': \(String(cString: strerror(-status)))") }
      }
      for path in write {
        let status = sb_allow_path(path, Int32(SB_READ_WRITE))
        if status != 0 { outcome.problems.append("write '\(path)': \(String(cString: strerror(-status)))") }
      }
      if !networkAny, abi >= 4 {
        for port in connect { _ = sb_allow_port(port, 0) }
        for port in bind { _ = sb_allow_port(port, 1) }
        outcome.network = true
      }
      let status = sb_enforce()
      if status == 0 {
        outcome.signals = sb_scopes_signals() != 0
      } else {
        outcome.landlockABI = 0
        outcome.network = false
        outcome.problems.append("Landlock not enforced: \(String(cString: strerror(-status)))")
      }
    } else {
      outcome.problems.append(
        "this kernel has no Landlock (or it is disabled): files, ports and signals are not confined")
    }
    let seccomp = sb_seccomp_install(unixSockets ? 1 : 0)
    if seccomp == 0 {
      outcome.seccomp = true
    } else {
      outcome.problems.append("seccomp filter not installed: \(String(cString: strerror(-seccomp)))")
    }
    return outcome
  }
}
