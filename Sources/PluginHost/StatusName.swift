import CPatchbayPlugin

/// Names of the ABI's status codes, for log lines: the header's own list (`pb_status_name`).
enum StatusName {
  static func of(_ status: Int32) -> String {
    pb_status_name(status).map { String(cString: $0) } ?? "\(status)"
  }
}
