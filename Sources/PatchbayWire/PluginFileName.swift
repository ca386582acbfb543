/// How a plugin's library file is named, and the rule that ties that name to the plugin.
///
/// The name in a library's descriptor is the plugin's name; the file name only says where it
/// lives. The hub finds `plugin = "NAME"` as `libpatchbay-plugin-NAME.so` or `NAME.so`, so the
/// two must agree: a library whose descriptor calls itself something else is refused when an
/// instance is created (by `patchbay check` and by the running hub alike), because otherwise
/// `plugin = "a"` would run a plugin the admin sees everywhere else as "b". Shared by the hub,
/// which looks for files, and the plugin host, which reads the descriptor.
public enum PluginFileName {
  /// The file name a packaged plugin gets.
  public static let packagedPrefix = "libpatchbay-plugin-"

  /// The file names a plugin may have, in the order they are looked for.
  public static func candidates(for plugin: String) -> [String] { ["\(packagedPrefix)\(plugin).so", "\(plugin).so"] }

  /// The plugin name a library file is found under: `libpatchbay-plugin-NAME.so` and
  /// `NAME.so` both give NAME; nil for a file that is not a `.so`.
  public static func pluginName(ofFile fileName: String) -> String? {
    guard fileName.hasSuffix(".so"), fileName.count > 3 else { return nil }
    let stem = String(fileName.dropLast(3))
    if stem.hasPrefix(packagedPrefix), stem.count > packagedPrefix.count {
      return String(stem.dropFirst(packagedPrefix.count))
    }
    return stem
  }

  /// `pluginName(ofFile:)` of the last component of a path.
  public static func pluginName(ofPath path: String) -> String? {
    pluginName(ofFile: String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""))
  }

  /// Why `instance`'s library, found as `foundAs`, is refused when its descriptor says
  /// `declared`; nil when they agree. One line that starts with the config key and names the
  /// path, both names and the two ways to fix it.
  public static func mismatch(instance: String, path: String, foundAs: String, declared: String) -> String? {
    guard foundAs != declared else { return nil }
    return
      "instances.\(instance).plugin = \"\(foundAs)\" finds \(path), but that library is plugin '\(declared)'"
      + " (the name in its descriptor; the file name is only where a plugin lives)."
      + " Rename the file to \(declared).so (packaged: \(packagedPrefix)\(declared).so) and set"
      + " plugin = \"\(declared)\", or point plugin = at the plugin you meant"
  }

  /// The failure status the plugin host reports for a name mismatch (PB_ERR_INVALID_CONFIG:
  /// the config names a file that holds another plugin; retrying as is cannot help).
  public static let mismatchStatus: Int32 = -1
}
