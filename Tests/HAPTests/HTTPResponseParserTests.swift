import HAP
import Testing

/// The controller side's response reader: responses and EVENTs however the bytes arrive, and
/// what it refuses.
@Suite struct HTTPResponseParserTests {
  static let stream = Array(
    """
    HTTP/1.1 204 No Content\r
    \r
    EVENT/1.0 200 OK\r
    Content-Type: application/hap+json\r
    Content-Length: 2\r
    \r
    {}HTTP/1.1 207 Multi-Status\r
    content-length: 3\r
    \r
    abc
    """.utf8)

  @Test func responsesAndEventsInOrderHoweverTheBytesArrive() throws {
    let whole = try HTTPResponseParser.parse(Self.stream)
    #expect(whole.map(\.status) == [204, 200, 207])
    #expect(whole.map(\.isEvent) == [false, true, false])
    #expect(whole[1].contentType == "application/hap+json")
    #expect(whole[2].body == Array("abc".utf8))
    var parser = HTTPResponseParser()
    var oneByOne: [HTTPResponse] = []
    for byte in Self.stream { oneByOne += try parser.append([byte]) }
    #expect(oneByOne == whole)
  }

  @Test func whatItRefuses() {
    for bad in [
      "HTTP/1.1 20 OK\r\n\r\n", "SIP/2.0 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
    ] {
      #expect(throws: HTTPResponseParser.Failure.self, "\(bad)") { try HTTPResponseParser.parse(Array(bad.utf8)) }
    }
  }

  /// What the controller writes, the server's parser reads back the same.
  @Test func requestsWrittenByTheControllerParseBack() throws {
    let request = HTTPRequest(
      method: "PUT", path: "/characteristics", query: [("id", "1.10,2.10"), ("ev", "1")],
      contentType: "application/hap+json", body: Array("{\"characteristics\":[]}".utf8))
    #expect(try HTTPRequestParser.parse(request.bytes) == [request])
  }
}
