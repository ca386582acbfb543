#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Where the Homebridge-websocket server listens: `ws://host:port/path`.
public struct WebSocketEndpoint: Sendable, Hashable, CustomStringConvertible {
  public var host: String
  public var port: Int
  public var path: String

  public init(host: String, port: Int, path: String = "/") {
    self.host = host
    self.port = port
    self.path = path
  }

  public struct Invalid: Error, CustomStringConvertible {
    public var description: String
  }

  public init(url: String) throws {
    guard let components = URLComponents(string: url), let scheme = components.scheme else {
      throw Invalid(description: "'\(url)' is not a URL; write it like ws://127.0.0.1:4050")
    }
    guard scheme == "ws" else {
      throw Invalid(
        description: "scheme '\(scheme)' is not supported; homebridge-websocket speaks plain ws:// (no TLS)")
    }
    guard let host = components.host, !host.isEmpty else {
      throw Invalid(description: "'\(url)' has no host; write it like ws://127.0.0.1:4050")
    }
    let port = components.port ?? 4050
    guard (1...65535).contains(port) else { throw Invalid(description: "port \(port) is out of range 1...65535") }
    self.host = host
    self.port = port
    path = components.path.isEmpty ? "/" : components.path
  }

  public var description: String { "ws://\(host):\(port)\(path)" }
}
