import CPatchbayPlugin
import PatchbayWire

#if canImport(Glibc)
  import Glibc
#endif

/// A plugin library, opened and checked. Never closed: Swift code must not be unloaded, and a
/// plugin is "reloaded" by replacing its whole process.
struct PluginLibrary {
  let path: String
  let descriptor: pb_plugin_descriptor
  let info: PluginInfo
  /// The descriptor's own `size`: the header the plugin was built with.
  let declaredSize: Int
  /// ABI 1.1: the plugin takes PB_ERR_BUSY from publish() instead of waiting.
  var publishBusy: Bool {
    declaredSize >= MemoryLayout<pb_plugin_descriptor>.offset(of: \.flags)! + 4
      && descriptor.flags & UInt32(PB_PLUGIN_PUBLISH_BUSY) != 0
  }

  /// The part of the descriptor every v1 plugin must have: up to and including `destroy`.
  /// ABI 1.3's `retire`, when the plugin's descriptor reaches it and sets it (the copy is
  /// zeroed past the plugin's size, so an older descriptor reads NULL here).
  var retire: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<pb_error>?) -> pb_status)? {
    declaredSize >= MemoryLayout<pb_plugin_descriptor>.offset(of: \.retire)! + 8 ? descriptor.retire : nil
  }

  static let minimumDescriptorSize = MemoryLayout<pb_plugin_descriptor>.offset(of: \.destroy)! + 8

  /// Opens and validates `path`. Every refusal is one line naming the library and the reason.
  static func open(_ path: String) throws(LoadFailure) -> PluginLibrary {
    if let problem = LibraryPermissions.problem(path) { throw LoadFailure(problem) }
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
      let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
      throw LoadFailure("\(path): cannot load: \(reason)")
    }
    guard let symbol = dlsym(handle, PB_ENTRY_SYMBOL) else {
      throw LoadFailure("\(path): no entry symbol '\(PB_ENTRY_SYMBOL)': not a patchbay plugin")
    }
    let describe = unsafeBitCast(symbol, to: pb_describe_fn.self)
    guard let raw = describe() else {
      throw LoadFailure("\(path): \(PB_ENTRY_SYMBOL) returned NULL (the plugin refuses to run here)")
    }
    // Only the plugin's own header size is readable; copy what fits, zero the rest.
    let declaredSize = Int(raw.pointee.size)
    var descriptor = pb_plugin_descriptor()
    let major = raw.pointee.abi_major
    let minor = raw.pointee.abi_minor
    guard major == UInt32(PB_ABI_MAJOR) else {
      throw LoadFailure(
        "\(path): built for plugin ABI \(major).\(minor), this hub speaks ABI \(PB_ABI_MAJOR).\(PB_ABI_MINOR);"
          + " the major versions must match")
    }
    guard minor <= UInt32(PB_ABI_MINOR) else {
      throw LoadFailure(
        "\(path): needs plugin ABI \(major).\(minor), this hub speaks only up to ABI \(PB_ABI_MAJOR).\(PB_ABI_MINOR);"
          + " update patchbay")
    }
    guard declaredSize >= minimumDescriptorSize else {
      throw LoadFailure(
        "\(path): descriptor size \(declaredSize) is smaller than ABI 1.0's \(minimumDescriptorSize) bytes")
    }
    withUnsafeMutableBytes(of: &descriptor) { target in
      target.copyMemory(
        from: UnsafeRawBufferPointer(start: raw, count: min(declaredSize, MemoryLayout<pb_plugin_descriptor>.size)))
    }
    func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
    guard let name = text(descriptor.name), !name.isEmpty else {
      throw LoadFailure("\(path): the descriptor has no plugin name")
    }
    guard let version = text(descriptor.version), !version.isEmpty else {
      throw LoadFailure("\(path): plugin '\(name)' has no version in its descriptor")
    }
    let missing = [
      ("create", descriptor.create == nil), ("start", descriptor.start == nil),
      ("receive", descriptor.receive == nil), ("stop", descriptor.stop == nil), ("destroy", descriptor.destroy == nil),
    ].filter(\.1).map(\.0)
    guard missing.isEmpty else {
      throw LoadFailure("\(path): plugin '\(name)' leaves \(missing.joined(separator: ", ")) NULL in its descriptor")
    }
    let info = PluginInfo(
      name: name, version: version, description: text(descriptor.description) ?? "", abiMajor: major, abiMinor: minor)
    return PluginLibrary(path: path, descriptor: descriptor, info: info, declaredSize: declaredSize)
  }
}

struct LoadFailure: Error {
  var message: String
  init(_ message: String) { self.message = message }
}
