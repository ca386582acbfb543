/// The controller side writes requests: the same `HTTPRequest` the server parses.
extension HTTPRequest {
  public init(
    method: String, path: String, query: [(String, String)] = [], contentType: String? = nil, body: [UInt8] = []
  ) {
    var headers: [String: String] = [:]
    if let contentType { headers["content-type"] = contentType }
    if !body.isEmpty || method != "GET" { headers["content-length"] = String(body.count) }
    self.init(method: method, path: path, query: query, headers: headers, body: body)
  }

  /// The request as bytes, headers in name order.
  public var bytes: [UInt8] {
    var target = path
    if !query.isEmpty { target += "?" + query.map { "\($0.0)=\($0.1)" }.joined(separator: "&") }
    var head = "\(method) \(target) HTTP/1.1\r\n"
    for name in headers.keys.sorted() { head += "\(name): \(headers[name]!)\r\n" }
    return Array((head + "\r\n").utf8) + body
  }
}
