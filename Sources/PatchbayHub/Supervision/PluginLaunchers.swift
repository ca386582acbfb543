import PatchbayCore

/// How the hub starts plugin instances for real: each in a `patchbay-plugin-host` process.
enum PluginLaunchers {
  static let processes: PluginLauncher = { host, instance, arguments, supervision, delegate in
    try PluginProcess.spawn(
      host: host, instance: instance, arguments: arguments, supervision: supervision, delegate: delegate)
  }
}
