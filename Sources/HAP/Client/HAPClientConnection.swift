import NIOCore
import NIOPosix
import PatchbayValues

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP connection to an accessory: one request at a time in order, plaintext until
/// `startEncryption`. Its channel handler owns the state; this is the async face of it.
final class HAPClientConnection: Sendable {
  private let channel: any Channel
  /// The `Host` header: HTTP/1.1 requires one, and HAP-python (h11) closes without it.
  private let hostHeader: String
  let events: AsyncStream<HAPCharacteristicValue>

  private init(channel: any Channel, hostHeader: String, events: AsyncStream<HAPCharacteristicValue>) {
    self.channel = channel
    self.hostHeader = hostHeader
    self.events = events
  }

  static func connect(host: String, port: Int, group: any EventLoopGroup, requestTimeout: TimeAmount)
    async throws(HAPClientError)
    -> HAPClientConnection
  {
    let (events, continuation) = AsyncStream.makeStream(of: HAPCharacteristicValue.self)
    do {
      let channel = try await ClientBootstrap(group: group)
        .connectTimeout(.seconds(10))
        .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              HAPClientChannelHandler(events: continuation, requestTimeout: requestTimeout))
          }
        }
        .connect(host: host, port: port).get()
      let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
      return HAPClientConnection(channel: channel, hostHeader: hostHeader, events: events)
    } catch {
      continuation.finish()
      throw .connectFailed("\(host) port \(port): \(Self.reason(error))")
    }
  }

  /// Why a connect failed, for people: `Connection refused`, not NIO's nested dump.
  static func reason(_ error: any Error) -> String {
    let underlying = (error as? NIOConnectionError)?.connectionErrors.first?.error ?? error
    if let io = underlying as? IOError { return String(cString: strerror(io.errnoCode)) }
    if case ChannelError.connectTimeout(let timeout) = underlying {
      return "no answer within \(timeout.nanoseconds / 1_000_000_000) s"
    }
    if let connection = error as? NIOConnectionError, connection.connectionErrors.isEmpty {
      return "cannot resolve the name"
    }
    return "\(underlying)"
  }

  func send(_ request: HTTPRequest) async throws(HAPClientError) -> HTTPResponse {
    var request = request
    request.headers["host"] = hostHeader
    let answer = channel.eventLoop.makePromise(of: HTTPResponse.self)
    let written = channel.eventLoop.makePromise(of: Void.self)
    // A closed channel refuses the write before the handler sees it: the answer fails here
    // then (a second completion of a promise is ignored).
    written.futureResult.whenFailure { error in
      answer.fail(error as? HAPClientError ?? .connectionClosed)
    }
    channel.writeAndFlush(HAPClientChannelHandler.Outbound.request(request.bytes, answer), promise: written)
    do {
      return try await answer.futureResult.get()
    } catch let error as HAPClientError {
      throw error
    } catch {
      throw .connectFailed("\(error)")
    }
  }

  /// A pairing message (pair-setup, pair-verify, /pairings): TLV8 both ways.
  func post(_ path: String, _ items: [TLV8.Item]) async throws(HAPClientError) -> [TLV8.Item] {
    let response = try await send(
      HTTPRequest(method: "POST", path: path, contentType: "application/pairing+tlv8", body: TLV8.encode(items)))
    // Some accessories answer a TLV error with a 4xx status: the TLV says more.
    if let items = try? TLV8.decode(response.body), items.byte(.state) != nil || items.byte(.error) != nil {
      return items
    }
    guard response.status == 200 else { throw .httpStatus(response.status, HAPStatus(jsonBody: response.body)) }
    throw .malformedResponse("\(path) answered without a TLV8 state")
  }

  func startEncryption(_ keys: HAPSessionKeys) async throws(HAPClientError) {
    do {
      try await channel.writeAndFlush(HAPClientChannelHandler.Outbound.encrypt(keys)).get()
    } catch {
      throw .connectionClosed
    }
  }

  func close() async {
    try? await channel.close()
  }
}

extension HAPStatus {
  /// The `status` of a `{"status": -70401}` body.
  init?(jsonBody: [UInt8]) {
    guard let raw = JSONValue.parse(String(decoding: jsonBody, as: UTF8.self))?["status"]?.integerValue else {
      return nil
    }
    self.init(rawValue: raw)
  }
}
