import CPatchbayPlugin

/// The names of patchbay/plugin.h's status codes, for the checker's reasons: the header's own
/// list (`pb_status_name`), so a code added there is named here too.
enum PluginStatusName {
  static func of(_ status: Int32) -> String {
    pb_status_name(status).map { String(cString: $0) } ?? "status \(status)"
  }
}
