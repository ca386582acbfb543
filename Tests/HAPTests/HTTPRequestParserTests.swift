import HAP
import Testing

@Suite struct HTTPRequestParserTests {
  @Test func requestsWithQueryAndBodyInPieces() throws {
    let text =
      "PUT /characteristics?id=1.10,2.10&ev=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd"
      + "GET /accessories HTTP/1.1\r\n\r\n"
    var parser = HTTPRequestParser()
    var requests: [HTTPRequest] = []
    for byte in text.utf8 { requests += try parser.append([byte]) }
    #expect(requests.count == 2)
    #expect(requests[0].method == "PUT" && requests[0].path == "/characteristics")
    #expect(requests[0].queryValue("id") == "1.10,2.10" && requests[0].queryValue("ev") == "1")
    #expect(requests[0].headers["host"] == "x")
    #expect(requests[0].body == Array("abcd".utf8))
    #expect(requests[1].path == "/accessories" && requests[1].body.isEmpty)
  }

  @Test func limitsAndGarbage() throws {
    #expect(throws: HTTPRequestParser.Failure.bodyTooLarge(1_048_576)) {
      try HTTPRequestParser.parse(Array("POST /pair-setup HTTP/1.1\r\nContent-Length: 1048576\r\n\r\n".utf8))
    }
    #expect(throws: HTTPRequestParser.Failure.headerTooLarge) {
      try HTTPRequestParser.parse(Array(("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 9000)).utf8))
    }
    #expect(throws: HTTPRequestParser.Failure.self) { try HTTPRequestParser.parse(Array("GARBAGE\r\n\r\n".utf8)) }
    #expect(throws: HTTPRequestParser.Failure.self) {
      try HTTPRequestParser.parse(Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
    }
    #expect(throws: HTTPRequestParser.Failure.self) {
      try HTTPRequestParser.parse(Array("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n".utf8))
    }
    #expect(throws: HTTPRequestParser.Failure.self) { try HTTPRequestParser.parse([0xFF, 0xFE, 13, 10, 13, 10]) }
  }

  @Test func headerValuesLoseTheirBlanksAndKeepTheRest() throws {
    let text =
      "GET /accessories HTTP/1.1\r\nX-Padded: \t two  words \t\r\nX-Empty:\r\nX-Only-Blanks: \t \r\n"
      + "X-Colon: a:b\r\nX-Bare\rCR: é\r\n\r\n"
    let request = try #require(try HTTPRequestParser.parse(Array(text.utf8)).first)
    #expect(request.headers["x-padded"] == "two  words")
    #expect(request.headers["x-empty"] == "")
    #expect(request.headers["x-only-blanks"] == "")
    #expect(request.headers["x-colon"] == "a:b")
    // A lone CR is no line end.
    #expect(request.headers["x-bare\rcr"] == "é")
    #expect(throws: HTTPRequestParser.Failure.malformed("bad header name")) {
      try HTTPRequestParser.parse(Array("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n".utf8))
    }
    #expect(throws: HTTPRequestParser.Failure.malformed("header without a colon")) {
      try HTTPRequestParser.parse(Array("GET / HTTP/1.1\r\nNoColon\r\n\r\n".utf8))
    }
  }
}
