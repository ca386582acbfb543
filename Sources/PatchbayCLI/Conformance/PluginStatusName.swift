import CPatchbayPlugin

/// The names of patchbay/plugin.h's status codes, for the checker's reasons, matched against the
/// header's own constants (no second list of numbers); a code added to the header goes here too.
enum PluginStatusName {
  static func of(_ status: Int32) -> String {
    switch status {
    case PB_OK: "PB_OK"
    case PB_ERR_INVALID_CONFIG: "PB_ERR_INVALID_CONFIG"
    case PB_ERR_INVALID_ARGUMENT: "PB_ERR_INVALID_ARGUMENT"
    case PB_ERR_UNKNOWN_PORT: "PB_ERR_UNKNOWN_PORT"
    case PB_ERR_TYPE_MISMATCH: "PB_ERR_TYPE_MISMATCH"
    case PB_ERR_UNAVAILABLE: "PB_ERR_UNAVAILABLE"
    case PB_ERR_NO_MEMORY: "PB_ERR_NO_MEMORY"
    case PB_ERR_INTERNAL: "PB_ERR_INTERNAL"
    case PB_ERR_NOT_SUPPORTED: "PB_ERR_NOT_SUPPORTED"
    case PB_ERR_INVALID_STATE: "PB_ERR_INVALID_STATE"
    case PB_ERR_NOT_FOUND: "PB_ERR_NOT_FOUND"
    case PB_ERR_BUSY: "PB_ERR_BUSY"
    default: "status \(status)"
    }
  }
}
