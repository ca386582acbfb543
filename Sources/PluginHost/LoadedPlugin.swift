import CPatchbayPlugin

#if canImport(Glibc)
  import Glibc
#endif

/// The plugin after create(): its descriptor, the instance pointer it returned, and the create
/// arguments it may keep until destroy(). Used on the plugin context only.
struct LoadedPlugin {
  let library: PluginLibrary
  let instance: UnsafeMutableRawPointer?
  let arguments: UnsafePointer<pb_create_args>

  /// The create arguments in memory of their own, never freed: the plugin may keep the
  /// pointer until destroy(), and the process ends soon after.
  static func arguments(_ value: pb_create_args) -> UnsafePointer<pb_create_args> {
    let memory = UnsafeMutablePointer<pb_create_args>.allocate(capacity: 1)
    memory.initialize(to: value)
    return UnsafePointer(memory)
  }
}
