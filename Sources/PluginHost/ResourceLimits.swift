#if canImport(Glibc)
  import Glibc
#endif

/// Limits the hub asked for this plugin process, applied before the plugin is loaded.
/// A plugin that exceeds them fails (allocation fails, or open() returns EMFILE) and the
/// supervisor restarts it like a crash.
enum ResourceLimits {
  static func apply(arguments: [String]) {
    var index = 0
    while index + 1 < arguments.count {
      let value = UInt64(arguments[index + 1]) ?? 0
      switch arguments[index] {
      case "--memory-limit-mb" where value > 0:
        set(Int32(RLIMIT_AS.rawValue), value * 1024 * 1024)
      case "--open-files" where value > 0:
        set(Int32(RLIMIT_NOFILE.rawValue), value)
      default:
        break
      }
      index += 2
    }
  }

  private static func set(_ resource: Int32, _ value: UInt64) {
    var limit = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
    if setrlimit(resource, &limit) != 0 {
      let text = "patchbay-plugin-host: setrlimit failed: \(String(cString: strerror(errno)))\n"
      _ = text.withCString { write(2, $0, strlen($0)) }
    }
  }
}
