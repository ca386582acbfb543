/// Our small HTTP/1.1 request parser: request line, headers, a `Content-Length` body (no
/// chunked bodies: controllers do not send them). Bytes come in as they arrive; complete
/// requests come out. Every failure is final for the connection.
public struct HTTPRequestParser: Sendable {
  public static let maximumHeaderLength = 8 * 1024
  public static let maximumBodyLength = 64 * 1024

  public enum Failure: Error, Hashable, Sendable {
    /// 400: not a request we can read.
    case malformed(String)
    /// 431: the request line and headers exceed 8 KiB.
    case headerTooLarge
    /// 413: the body exceeds 64 KiB.
    case bodyTooLarge(Int)

    public var status: Int {
      switch self {
      case .malformed: 400
      case .headerTooLarge: 431
      case .bodyTooLarge: 413
      }
    }
  }

  private var buffer: [UInt8] = []

  public init() {}

  /// Adds bytes and returns every request they complete.
  public mutating func append(_ bytes: [UInt8]) throws(Failure) -> [HTTPRequest] {
    buffer += bytes
    var requests: [HTTPRequest] = []
    while let request = try next() { requests.append(request) }
    return requests
  }

  /// The fuzzable entry point: every request in `bytes`, or the failure.
  public static func parse(_ bytes: [UInt8]) throws(Failure) -> [HTTPRequest] {
    var parser = HTTPRequestParser()
    return try parser.append(bytes)
  }

  private mutating func next() throws(Failure) -> HTTPRequest? {
    guard let headerEnd = HTTPHead.find([13, 10, 13, 10], in: buffer, limit: Self.maximumHeaderLength + 4) else {
      if buffer.count > Self.maximumHeaderLength { throw .headerTooLarge }
      return nil
    }
    guard headerEnd <= Self.maximumHeaderLength else { throw .headerTooLarge }
    // Cut as bytes (HTTPHead says why).
    let head = buffer[0..<headerEnd]
    guard String(validating: head, as: UTF8.self) != nil else { throw .malformed("header is not UTF-8") }
    var lines = HTTPHead.lines(of: head)
    let requestLine = String(decoding: lines.removeFirst(), as: UTF8.self).split(
      separator: " ", omittingEmptySubsequences: false)
    guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1."), !requestLine[0].isEmpty,
      requestLine[1].hasPrefix("/")
    else { throw .malformed("bad request line") }
    var headers: [String: String] = [:]
    for line in lines {
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformed("header without a colon") }
      let name = line[..<colon]
      guard !name.isEmpty, !name.contains(UInt8(ascii: " ")) else { throw .malformed("bad header name") }
      headers[String(decoding: name, as: UTF8.self).lowercased()] = String(
        decoding: HTTPHead.trimmingBlanks(line[(colon + 1)...]), as: UTF8.self)
    }
    if let encoding = headers["transfer-encoding"], encoding.lowercased() != "identity" {
      throw .malformed("transfer-encoding \(encoding) is not supported")
    }
    var length = 0
    if let text = headers["content-length"] {
      guard let value = Int(text), value >= 0 else { throw .malformed("bad content-length") }
      length = value
    }
    guard length <= Self.maximumBodyLength else { throw .bodyTooLarge(length) }
    let bodyStart = headerEnd + 4
    guard buffer.count - bodyStart >= length else { return nil }
    let body = Array(buffer[bodyStart..<bodyStart + length])
    buffer.removeFirst(bodyStart + length)
    let target = requestLine[1]
    let pathPart = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    let query: [(String, String)] =
      pathPart.count > 1
      ? pathPart[1].split(separator: "&").map { item in
        let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(pair[0]), pair.count > 1 ? String(pair[1]) : "")
      } : []
    return HTTPRequest(
      method: String(requestLine[0]), path: String(pathPart[0]), query: query, headers: headers, body: body)
  }
}
