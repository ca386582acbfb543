import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's basic one plus the connection's two
/// addresses, which the access rules need (who is asking, on which port).
struct WebRequestContext: RequestContext, RemoteAddressRequestContext {
  var coreContext: CoreRequestContextStorage
  let remoteAddress: SocketAddress?
  let localAddress: SocketAddress?

  init(source: Source) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
    localAddress = source.channel.localAddress
  }
}
