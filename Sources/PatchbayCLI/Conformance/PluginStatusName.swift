/// The names of patchbay/plugin.h's status codes, for the checker's reasons.
enum PluginStatusName {
  static func of(_ status: Int32) -> String {
    switch status {
    case 0: "PB_OK"
    case -1: "PB_ERR_INVALID_CONFIG"
    case -2: "PB_ERR_INVALID_ARGUMENT"
    case -3: "PB_ERR_UNKNOWN_PORT"
    case -4: "PB_ERR_TYPE_MISMATCH"
    case -5: "PB_ERR_UNAVAILABLE"
    case -6: "PB_ERR_NO_MEMORY"
    case -7: "PB_ERR_INTERNAL"
    case -8: "PB_ERR_NOT_SUPPORTED"
    case -9: "PB_ERR_INVALID_STATE"
    case -10: "PB_ERR_NOT_FOUND"
    default: "status \(status)"
    }
  }
}
