/// Where a bridge's v1 API listens: `host`, `host:port` or `http://host[:port]`.
public struct BridgeAddress: Sendable, Hashable, CustomStringConvertible {
  public var host: String
  public var port: Int

  /// Reads the forms above; the error says what is wrong.
  public init(parsing text: String) throws(BridgeAddressError) {
    var rest = Substring(text)
    if rest.hasPrefix("https://") {
      throw BridgeAddressError(description: "the v1 API is plain http; write \"\(rest.dropFirst("https://".count))\"")
    }
    if rest.hasPrefix("http://") { rest = rest.dropFirst("http://".count) }
    while rest.hasSuffix("/") { rest = rest.dropLast() }
    host = String(rest)
    port = 80
    if let colon = rest.lastIndex(of: ":") {
      guard let number = Int(rest[rest.index(after: colon)...]), (1...65535).contains(number) else {
        throw BridgeAddressError(description: "the port after ':' must be 1...65535")
      }
      host = String(rest[..<colon])
      port = number
    }
    guard !host.isEmpty, !host.contains("/"), !host.contains(" "), !host.contains("@") else {
      throw BridgeAddressError(description: "it must be an address like \"192.168.1.20\" or \"bridge.local:8080\"")
    }
  }

  /// `http://host:port`.
  public var baseURL: String { "http://\(host):\(port)" }

  public var description: String { port == 80 ? host : "\(host):\(port)" }
}

public struct BridgeAddressError: Error, Sendable, CustomStringConvertible {
  public var description: String
}
