import AsyncHTTPClient
import HueProtocol
import NIOCore
import NIOHTTP1
import PatchbayValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// HTTP to one bridge's v1 API. The username is part of every path and is kept out of every
/// message this type produces (`Failure.description` is redacted).
final class BridgeClient: Sendable {
  enum Failure: Error, CustomStringConvertible {
    /// Refused, reset, timed out: the bridge is not there or hangs.
    case unreachable(String)
    /// 429 or 503: the bridge is overloaded (it sends an HTML page, not JSON).
    case overloaded(status: Int)
    /// Any other HTTP status.
    case status(Int)
    /// An answer that is not what the endpoint sends.
    case unreadable(HueParseError)

    var description: String {
      switch self {
      case .unreachable(let reason): "unreachable: \(reason)"
      case .overloaded(let status): "overloaded (HTTP \(status))"
      case .status(let status): "HTTP \(status)"
      case .unreadable(let error): "\(error)"
      }
    }
  }

  let http: HTTPClient
  let base: String
  private let username: String
  let timeout: TimeAmount

  init(
    host: String, port: Int, username: String, timeoutSeconds: Double, maxConnections: Int, group: any EventLoopGroup
  ) {
    base = "http://\(host):\(port)"
    self.username = username
    timeout = .milliseconds(Int64(timeoutSeconds * 1000))
    var configuration = HTTPClient.Configuration(
      timeout: .init(connect: timeout, read: timeout),
      connectionPool: .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: maxConnections))
    configuration.httpVersion = .http1Only
    http = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
  }

  /// Replaces the username wherever it shows up (error texts may quote URLs).
  func redact(_ text: String) -> String {
    username.isEmpty ? text : text.replacing(username, with: "<username>")
  }

  /// `GET /api/USERNAME + path`: the answer's body, for `HueAnswerParser`.
  func get(_ path: String, on loop: any EventLoop) -> EventLoopFuture<Data> {
    send(.GET, path, body: nil, on: loop)
  }

  /// `PUT /api/USERNAME + path` with a JSON body: the per-attribute results.
  func put(_ path: String, _ body: JSONValue, on loop: any EventLoop) -> EventLoopFuture<[HueResult]> {
    send(.PUT, path, body: body.text, on: loop).flatMapThrowing { data in
      do throws(HueParseError) {
        return try HueAnswerParser.results(data)
      } catch {
        throw Failure.unreadable(error)
      }
    }
  }

  private func send(_ method: HTTPMethod, _ path: String, body: String?, on loop: any EventLoop)
    -> EventLoopFuture<Data>
  {
    let request: HTTPClient.Request
    do {
      request = try HTTPClient.Request(
        url: "\(base)/api/\(username)\(path)", method: method,
        headers: ["Content-Type": "application/json", "Accept": "application/json"],
        body: body.map { .string($0) })
    } catch {
      return loop.makeFailedFuture(Failure.unreachable("bad address \(base): \(error)"))
    }
    return http.execute(request: request, eventLoop: .delegate(on: loop), deadline: .now() + timeout)
      .flatMapErrorThrowing { [self] error in throw Failure.unreachable(redact("\(error)")) }
      .flatMapThrowing { response in
        switch response.status.code {
        case 200: return response.body.map { Data($0.readableBytesView) } ?? Data()
        case 429, 503: throw Failure.overloaded(status: Int(response.status.code))
        default: throw Failure.status(Int(response.status.code))
        }
      }
  }

  func shutdown() {
    try? http.syncShutdown()
  }
}
