import CPatchbayPlugin
import PatchbayCValues

#if canImport(Glibc)
  import Glibc
#endif

/// Builds the C descriptor for a Swift plugin type. A plugin library exports it like this:
///
/// ```swift
/// @_cdecl("patchbay_plugin_describe")
/// public func describe() -> UnsafeRawPointer {
///   PluginExport.descriptor(for: MyPlugin.self, name: "my-plugin", version: "1.0.0",
///                           description: "What it does")
/// }
/// ```
/// One plugin type per library; the descriptor is built once and lives as long as the process.
///
/// `minimumABIMinor` is the lowest hub ABI minor the plugin needs (the descriptor's
/// `abi_minor`). The kit itself needs only ABI 1.0: it checks everything newer at run time
/// (`waitForRoom`, releasing cancelled timers, port attributes), so by default a plugin built
/// today loads in every v1 hub. A plugin that cannot do without a newer feature (a mirroring
/// output, ABI 1.2) declares that minor, and an older hub refuses it with a clear message.
public enum PluginExport {
  /// The lowest ABI minor the kit's own calls need.
  public static let kitMinimumABIMinor: UInt32 = 0

  // The C ABI calls describe once, from the host's loading thread, before any other callback:
  // written once before any reader exists, read-only after (the ABI's rule, not a lock's).
  nonisolated(unsafe) static var factory: ((PluginContext) throws -> any PatchbayPlugin)?
  nonisolated(unsafe) static var cached: UnsafeMutablePointer<pb_plugin_descriptor>?

  public static func descriptor<P: PatchbayPlugin>(
    for type: P.Type, name: String, version: String, description: String,
    minimumABIMinor: UInt32 = kitMinimumABIMinor
  ) -> UnsafeRawPointer {
    if let cached { return UnsafeRawPointer(cached) }
    factory = { try P(context: $0) }
    let descriptor = UnsafeMutablePointer<pb_plugin_descriptor>.allocate(capacity: 1)
    descriptor.initialize(
      to: pb_plugin_descriptor(
        size: UInt32(MemoryLayout<pb_plugin_descriptor>.size),
        abi_major: UInt32(PB_ABI_MAJOR), abi_minor: min(max(minimumABIMinor, kitMinimumABIMinor), UInt32(PB_ABI_MINOR)),
        reserved: 0,
        name: UnsafePointer(strdup(name)), version: UnsafePointer(strdup(version)),
        description: UnsafePointer(strdup(description)),
        create: { args, instanceOut, errorOut in
          guard let args, let instanceOut, let factory = PluginExport.factory else { return PB_ERR_INVALID_ARGUMENT }
          let context = PluginContext(args: args)
          do {
            let plugin = try factory(context)
            instanceOut.pointee = Unmanaged.passRetained(Instance(plugin: plugin, context: context)).toOpaque()
            return PB_OK
          } catch {
            return PluginExport.fail(error, into: errorOut)
          }
        },
        start: { instance, error in
          guard let box = Instance.from(instance) else { return PB_ERR_INVALID_ARGUMENT }
          do {
            try box.plugin.start()
            return PB_OK
          } catch let failure {
            return PluginExport.fail(failure, into: error)
          }
        },
        receive: { instance, portIndex, raw, error in
          guard let box = Instance.from(instance), let raw else { return PB_ERR_INVALID_ARGUMENT }
          guard let port = box.context.input(at: portIndex) else { return PB_ERR_UNKNOWN_PORT }
          guard let value = try? Value(checking: raw), value.type == port.type else { return PB_ERR_TYPE_MISMATCH }
          do {
            try box.plugin.receive(value, on: port)
            return PB_OK
          } catch let failure {
            return PluginExport.fail(failure, into: error)
          }
        },
        stop: { instance, _ in
          Instance.from(instance)?.plugin.stop()
          return PB_OK
        },
        destroy: { instance in
          guard let instance else { return }
          Unmanaged<Instance>.fromOpaque(instance).release()
        },
        // ABI 1.1: `PluginContext.publish` waits on PB_ERR_BUSY itself; `tryPublish` reports it.
        flags: UInt32(PB_PLUGIN_PUBLISH_BUSY), reserved_1_1: 0,
        // ABI 1.3: an older hub never calls it.
        retire: { instance, error in
          guard let box = Instance.from(instance) else { return PB_ERR_INVALID_ARGUMENT }
          do {
            try box.plugin.retire()
            return PB_OK
          } catch let failure {
            return PluginExport.fail(failure, into: error)
          }
        }))
    cached = descriptor
    return UnsafeRawPointer(descriptor)
  }

  /// Writes an error's message into the host's buffer and returns its status code. A message
  /// longer than the buffer is cut at a character boundary, never inside a UTF-8 sequence.
  static func fail(_ error: any Error, into buffer: UnsafeMutablePointer<pb_error>?) -> pb_status {
    let message = (error as? PluginError)?.description ?? "\(error)"
    if let buffer {
      withUnsafeMutableBytes(of: &buffer.pointee.message) { bytes in
        let utf8 = Array(prefix(of: message, fittingIn: bytes.count - 1).utf8)
        bytes.copyBytes(from: utf8)
        bytes[utf8.count] = 0
      }
    }
    return (error as? PluginError)?.code.rawValue ?? PB_ERR_INTERNAL
  }
}

extension PluginExport {
  /// The longest prefix of `message` made of whole characters that fits in `bytes` UTF-8 bytes.
  static func prefix(of message: String, fittingIn bytes: Int) -> Substring {
    var end = message.startIndex
    var used = 0
    for index in message.indices {
      let size = message[index].utf8.count
      guard used + size <= bytes else { break }
      used += size
      end = message.index(after: index)
    }
    return message[..<end]
  }
}

/// What the opaque instance pointer points at.
final class Instance {
  let plugin: any PatchbayPlugin
  let context: PluginContext
  init(plugin: any PatchbayPlugin, context: PluginContext) {
    self.plugin = plugin
    self.context = context
  }
  static func from(_ pointer: UnsafeMutableRawPointer?) -> Instance? {
    pointer.map { Unmanaged<Instance>.fromOpaque($0).takeUnretainedValue() }
  }
}
