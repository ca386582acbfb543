import Foundation
import Synchronization

/// Who may do what. Without a token (loopback only) every read is open; with a token a request
/// needs the session cookie that the login form sets, or `Authorization: Bearer TOKEN`. A state
/// change (POST) always needs, besides, the CSRF header the page is given (or the bearer token):
/// another web site can make a browser send a cookie or reach loopback, but not set that header.
final class AccessPolicy: Sendable {
  static let sessionCookie = "patchbay_session"
  static let csrfHeader = "X-Patchbay-CSRF"

  let token: AccessToken?
  let listenHost: String
  /// The CSRF value for the token-less (loopback) mode: one per process.
  let openCSRF = AccessPolicy.randomSecret()
  /// Session id -> its CSRF value.
  private let sessions = Mutex<[String: String]>([:])

  init(token: AccessToken?, listenHost: String) {
    self.token = token
    self.listenHost = listenHost
  }

  var requiresLogin: Bool { token != nil }

  /// The login form's check: a new session (id, csrf) for the right token.
  func logIn(with candidate: String) -> (session: String, csrf: String)? {
    guard let token, token.matches(candidate) else { return nil }
    let session = Self.randomSecret()
    let csrf = Self.randomSecret()
    sessions.withLock { table in
      // Bounded: the oldest sessions are not tracked, so a login loop cannot grow memory.
      if table.count >= 1000 { table.removeAll() }
      table[session] = csrf
    }
    return (session, csrf)
  }

  func logOut(session: String) { _ = sessions.withLock { $0.removeValue(forKey: session) } }

  /// The CSRF value that goes with `session` (or the open one without a token).
  func csrf(forSession session: String?) -> String? {
    guard requiresLogin else { return openCSRF }
    guard let session else { return nil }
    return sessions.withLock { $0[session] }
  }

  func bearerMatches(_ header: String?) -> Bool {
    guard let token, let header, header.hasPrefix("Bearer ") else { return false }
    return token.matches(String(header.dropFirst("Bearer ".count)))
  }

  static func randomSecret() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
  }
}
