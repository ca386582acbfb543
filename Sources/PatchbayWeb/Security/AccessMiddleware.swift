import Foundation
import HTTPTypes
import Hummingbird

/// Applies `AccessPolicy` to every request before it reaches a route.
struct AccessMiddleware: RouterMiddleware {
  typealias Context = WebRequestContext
  let policy: AccessPolicy

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
    async throws -> Response
  {
    let path = request.uri.path
    if !policy.requiresLogin, !Self.isLoopbackHost(request.head.authority) {
      // Without a token only loopback names are served: a page on another site that rebinds its
      // own DNS name to 127.0.0.1 gets nothing.
      return APIResponse.error(.misdirectedRequest, "patchbay-web without a token answers loopback names only")
    }
    if !policy.requiresLogin {
      // Loopback is every local user: only one who could use the hub's socket itself goes on.
      let user = LoopbackPeer.user(remote: context.remoteAddress, local: context.localAddress)
      guard let user, LoopbackPeer.mayUseControlSocket(user, socketPath: policy.controlSocket) else {
        return APIResponse.error(
          .forbidden,
          "patchbay-web without a token serves only users who may use the hub's control socket "
            + "(root, its group); this connection is from uid \(user.map { String($0) } ?? "unknown"). "
            + "Join the socket's group, or run patchbay-web with --token-file and log in")
      }
    }
    if path == "/login" || path == "/style.css" { return try await next(request, context) }
    let bearer = policy.bearerMatches(request.headers[.authorization])
    let session = request.cookies[AccessPolicy.sessionCookie]?.value
    let csrf = policy.csrf(forSession: session)
    if policy.requiresLogin, !bearer, csrf == nil {
      if request.method == .get, !path.hasPrefix("/api/"), path != "/metrics" {
        return Response(status: .seeOther, headers: [.location: "/login"])
      }
      return APIResponse.error(.unauthorized, "log in at /login, or send Authorization: Bearer TOKEN")
    }
    if request.method != .get, request.method != .head, !bearer {
      let sent = request.headers[HTTPField.Name(AccessPolicy.csrfHeader)!] ?? ""
      guard let csrf, AccessToken.constantTimeEqual(Array(sent.utf8), Array(csrf.utf8)) else {
        return APIResponse.error(
          .forbidden, "a state change needs the \(AccessPolicy.csrfHeader) header from GET /api/session")
      }
    }
    return try await next(request, context)
  }

  static func isLoopbackHost(_ authority: String?) -> Bool {
    guard let authority else { return false }
    var host = authority
    if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
      host = String(host[host.index(after: host.startIndex)..<end])
    } else if let colon = host.lastIndex(of: ":") {
      host = String(host[..<colon])
    }
    return host == "localhost" || host == "::1" || (host.hasPrefix("127.") && host.split(separator: ".").count == 4)
  }
}
