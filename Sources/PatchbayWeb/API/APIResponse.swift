import Foundation
import Hummingbird

/// JSON answers of the API: a value, or `{"error": "..."}` with a status.
enum APIResponse {
  static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return Response(
      status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }

  struct Failure: Encodable {
    var error: String
  }

  static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
    json(Failure(error: message), status: status)
  }

  static func text(_ text: String, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status, headers: [.contentType: contentType, .cacheControl: "no-store"],
      body: .init(byteBuffer: ByteBuffer(string: text)))
  }
}
