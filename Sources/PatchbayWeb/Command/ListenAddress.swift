/// `--listen HOST:PORT` (`[::1]:8080` for IPv6), and whether it is a loopback address.
struct ListenAddress: Sendable, Equatable {
  var host: String
  var port: Int

  struct Invalid: Error, CustomStringConvertible {
    var description: String
  }

  init(parsing text: String) throws(Invalid) {
    let invalid = Invalid(description: "--listen expects HOST:PORT (like 127.0.0.1:8080 or [::1]:8080), got '\(text)'")
    guard let colon = text.lastIndex(of: ":") else { throw invalid }
    var host = String(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
      throw invalid
    }
    self.host = host
    self.port = port
  }

  /// 127.0.0.0/8, ::1 and `localhost`: reachable from this machine only.
  var isLoopback: Bool {
    host == "localhost" || host == "::1"
      || host.split(separator: ".").first == "127"
        && host.split(separator: ".").count == 4
  }

  var urlHost: String { host.contains(":") ? "[\(host)]" : host }
}
