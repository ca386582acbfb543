import CPatchbayPlugin
import PatchbayValues

#if canImport(Glibc)
  import Glibc
#endif

extension HostRuntime {
  /// The host services table every plugin gets in its create args: allocated once, never
  /// changed or freed (the plugin keeps the pointer until destroy, the process ends after).
  static func allocateAPI() -> UnsafePointer<pb_host_api> {
    let memory = UnsafeMutablePointer<pb_host_api>.allocate(capacity: 1)
    memory.initialize(to: makeAPI())
    return UnsafePointer(memory)
  }

  /// The `pb_host_api` table: capture-free C callbacks that find the runtime through `host`.
  static func makeAPI() -> pb_host_api {
    pb_host_api(
      size: UInt32(MemoryLayout<pb_host_api>.size), abi_major: UInt32(PB_ABI_MAJOR), abi_minor: UInt32(PB_ABI_MINOR),
      reserved: 0,
      add_port: { host, port, index in
        HostRuntime.runtime(host)?.addPort(port, index) ?? PB_ERR_INVALID_ARGUMENT
      },
      publish: { host, index, value in
        HostRuntime.runtime(host)?.publish(index, value) ?? PB_ERR_INVALID_ARGUMENT
      },
      log: { host, level, message in
        guard let runtime = HostRuntime.runtime(host), let message else { return }
        runtime.pluginLog(UInt8(min(level, UInt32(PB_LOG_ERROR))), String(cString: message))
      },
      monotonic_ns: { _ in
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
      },
      schedule: { host, delay, callback, userData, idOut in
        guard let runtime = HostRuntime.runtime(host), let id = runtime.schedule(delay, callback, userData) else {
          return PB_ERR_INVALID_ARGUMENT
        }
        idOut?.pointee = id
        return PB_OK
      },
      cancel_timer: { host, id in
        HostRuntime.runtime(host)?.cancelTimer(id) ?? PB_ERR_INVALID_ARGUMENT
      },
      report_fault: { host, code, message in
        let text = message.map { String(cString: $0) } ?? "no message"
        guard let runtime = HostRuntime.runtime(host) else { hostExit(.pluginFault) }
        runtime.reportFault(code, text)
      },
      config_string: { host, path, out in
        guard let runtime = HostRuntime.runtime(host), let out else { return PB_ERR_INVALID_ARGUMENT }
        guard let value = runtime.configAccess(path) else { return PB_ERR_NOT_FOUND }
        guard case .string(let string) = value else { return PB_ERR_TYPE_MISMATCH }
        out.pointee = runtime.retained(string)
        return PB_OK
      },
      config_integer: { host, path, out in
        guard let runtime = HostRuntime.runtime(host), let out else { return PB_ERR_INVALID_ARGUMENT }
        guard let value = runtime.configAccess(path) else { return PB_ERR_NOT_FOUND }
        guard case .integer(let integer) = value else { return PB_ERR_TYPE_MISMATCH }
        out.pointee = integer
        return PB_OK
      },
      config_number: { host, path, out in
        guard let runtime = HostRuntime.runtime(host), let out else { return PB_ERR_INVALID_ARGUMENT }
        guard let value = runtime.configAccess(path) else { return PB_ERR_NOT_FOUND }
        guard let number = value.doubleValue else { return PB_ERR_TYPE_MISMATCH }
        out.pointee = number
        return PB_OK
      },
      config_bool: { host, path, out in
        guard let runtime = HostRuntime.runtime(host), let out else { return PB_ERR_INVALID_ARGUMENT }
        guard let value = runtime.configAccess(path) else { return PB_ERR_NOT_FOUND }
        guard case .bool(let flag) = value else { return PB_ERR_TYPE_MISMATCH }
        out.pointee = flag ? 1 : 0
        return PB_OK
      },
      config_count: { host, path, out in
        guard let runtime = HostRuntime.runtime(host), let out else { return PB_ERR_INVALID_ARGUMENT }
        switch runtime.configAccess(path) {
        case .none: return PB_ERR_NOT_FOUND
        case .array(let items): out.pointee = UInt32(items.count)
        case .object(let members): out.pointee = UInt32(members.count)
        default: return PB_ERR_TYPE_MISMATCH
        }
        return PB_OK
      },
      config_key: { host, path, index, out in
        guard let runtime = HostRuntime.runtime(host), let out else { return PB_ERR_INVALID_ARGUMENT }
        guard let value = runtime.configAccess(path) else { return PB_ERR_NOT_FOUND }
        guard case .object(let members) = value else { return PB_ERR_TYPE_MISMATCH }
        guard members.indices.contains(Int(index)) else { return PB_ERR_NOT_FOUND }
        out.pointee = runtime.retained(members[Int(index)].0)
        return PB_OK
      },
      wait_for_room: { host, timeout in
        guard let runtime = HostRuntime.runtime(host) else { return PB_ERR_INVALID_ARGUMENT }
        return runtime.outbox.waitForRoom(timeout: timeout) ? PB_OK : PB_ERR_BUSY
      },
      schedule_with_release: { host, delay, callback, release, userData, idOut in
        guard let runtime = HostRuntime.runtime(host),
          let id = runtime.schedule(delay, callback, release: release, userData)
        else { return PB_ERR_INVALID_ARGUMENT }
        idOut?.pointee = id
        return PB_OK
      })
  }
}
