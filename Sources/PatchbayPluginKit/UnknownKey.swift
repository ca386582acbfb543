import PatchbayValues

extension PluginError {
  /// A config key the plugin does not know (a typo would otherwise be silently ignored), with
  /// the closest known key as a "did you mean" and the list of known keys.
  public static func unknownKey(_ key: String, known: [String], path: String = "") -> PluginError {
    let hint = Spelling.closest(to: key, in: known).map { " (did you mean '\(path)\($0)'?)" } ?? ""
    return .config("unknown key '\(path)\(key)'\(hint); known keys: \(known.joined(separator: ", "))")
  }
}
