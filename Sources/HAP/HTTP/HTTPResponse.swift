import PatchbayValues

/// A response (`HTTP/1.1`) or a notification (`EVENT/1.0`) as bytes; the server writes them,
/// the controller side reads them (`HTTPResponseParser`).
public struct HTTPResponse: Sendable, Hashable {
  public var status: Int
  public var contentType: String?
  public var body: [UInt8]
  public var isEvent = false

  public init(status: Int, contentType: String? = nil, body: [UInt8] = [], isEvent: Bool = false) {
    self.status = status
    self.contentType = contentType
    self.body = body
    self.isEvent = isEvent
  }

  static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
    HTTPResponse(status: status, contentType: "application/hap+json", body: Array(value.description.utf8))
  }

  static func tlv(_ items: [TLV8.Item]) -> HTTPResponse {
    HTTPResponse(status: 200, contentType: "application/pairing+tlv8", body: TLV8.encode(items))
  }

  /// `{"status": -70401}` style answers.
  static func status(_ status: Int, _ hapStatus: HAPStatus) -> HTTPResponse {
    json(status, .object([("status", .integer(Int64(hapStatus.rawValue)))]))
  }

  public var bytes: [UInt8] {
    var head = (isEvent ? "EVENT/1.0 " : "HTTP/1.1 ") + "\(status) \(Self.reason(status))\r\n"
    if let contentType { head += "Content-Type: \(contentType)\r\n" }
    head += "Content-Length: \(body.count)\r\n\r\n"
    return Array(head.utf8) + body
  }

  static func reason(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 204: "No Content"
    case 207: "Multi-Status"
    case 400: "Bad Request"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 413: "Payload Too Large"
    case 422: "Unprocessable Entity"
    case 431: "Request Header Fields Too Large"
    case 470: "Connection Authorization Required"
    case 500: "Internal Server Error"
    case 503: "Service Unavailable"
    default: "Status"
    }
  }
}
