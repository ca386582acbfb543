/// The controller side's HTTP/1.1 response reader: status line (`HTTP/1.1 200 OK`, or
/// `EVENT/1.0 200 OK` for a notification), headers, a `Content-Length` body (HAP accessories
/// send no chunked bodies). Bytes come in as they arrive; complete messages come out. Every
/// failure is final for the connection.
public struct HTTPResponseParser: Sendable {
  public static let maximumHeaderLength = 8 * 1024
  /// A large bridge's /accessories is a few hundred KiB.
  public static let maximumBodyLength = 8 * 1024 * 1024

  public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
  }

  private var buffer: [UInt8] = []

  public init() {}

  /// Adds bytes and returns every message they complete.
  public mutating func append(_ bytes: [UInt8]) throws(Failure) -> [HTTPResponse] {
    buffer += bytes
    var responses: [HTTPResponse] = []
    while let response = try next() { responses.append(response) }
    return responses
  }

  /// The fuzzable entry point: every message in `bytes`, or the failure.
  public static func parse(_ bytes: [UInt8]) throws(Failure) -> [HTTPResponse] {
    var parser = HTTPResponseParser()
    return try parser.append(bytes)
  }

  private mutating func next() throws(Failure) -> HTTPResponse? {
    guard
      let headerEnd = HTTPHead.find([13, 10, 13, 10], in: buffer, limit: Self.maximumHeaderLength + 4)
    else {
      if buffer.count > Self.maximumHeaderLength { throw Failure(description: "response header over 8 KiB") }
      return nil
    }
    guard headerEnd <= Self.maximumHeaderLength else { throw Failure(description: "response header over 8 KiB") }
    // Cut as bytes (HTTPHead says why).
    let head = buffer[0..<headerEnd]
    guard String(validating: head, as: UTF8.self) != nil else {
      throw Failure(description: "response header is not UTF-8")
    }
    var lines = HTTPHead.lines(of: head)
    let statusLine = String(decoding: lines.removeFirst(), as: UTF8.self).split(
      separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1.") || statusLine[0] == "EVENT/1.0",
      statusLine[1].count == 3, let status = Int(statusLine[1]), status >= 100
    else { throw Failure(description: "bad status line") }
    var headers: [String: String] = [:]
    for line in lines {
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
        throw Failure(description: "header without a colon")
      }
      headers[String(decoding: line[..<colon], as: UTF8.self).lowercased()] = String(
        decoding: HTTPHead.trimmingBlanks(line[(colon + 1)...]), as: UTF8.self)
    }
    if let encoding = headers["transfer-encoding"], encoding.lowercased() != "identity" {
      throw Failure(description: "transfer-encoding \(encoding) is not supported")
    }
    var length = 0
    if let text = headers["content-length"] {
      guard let value = Int(text), value >= 0 else { throw Failure(description: "bad content-length") }
      length = value
    }
    guard length <= Self.maximumBodyLength else { throw Failure(description: "body of \(length) bytes is too large") }
    let bodyStart = headerEnd + 4
    guard buffer.count - bodyStart >= length else { return nil }
    let body = Array(buffer[bodyStart..<bodyStart + length])
    buffer.removeFirst(bodyStart + length)
    return HTTPResponse(
      status: status, contentType: headers["content-type"], body: body, isEvent: statusLine[0] == "EVENT/1.0")
  }
}
