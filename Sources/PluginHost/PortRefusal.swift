/// Why add_port refused a port, for the log line that names it.
struct PortRefusal: Error {
  var message: String
  init(_ message: String) { self.message = message }
}
