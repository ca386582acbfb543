import Foundation
import Logging
import Synchronization

/// Who may do what. Without a token (loopback only) every read is open; with a token a request
/// needs the session cookie that the login form sets, or `Authorization: Bearer TOKEN`. A state
/// change (POST) always needs, besides, the CSRF header the page is given (or the bearer token):
/// another web site can make a browser send a cookie or reach loopback, but not set that header.
/// Without a token a loopback client must besides be a user who could use the hub's control
/// socket itself (`LoopbackPeer`). Wrong tokens at the login form are throttled per address
/// (`LoginThrottle`).
final class AccessPolicy: Sendable {
  static let sessionCookie = "patchbay_session"
  static let csrfHeader = "X-Patchbay-CSRF"

  let token: AccessToken?
  let listenHost: String
  /// The CSRF value for the token-less (loopback) mode: one per process.
  let openCSRF = AccessPolicy.randomSecret()
  /// Sessions kept at most; a new one beyond it signs out the least recently used one.
  static let sessionCapacity = 1000
  /// The hub's control socket, whose permissions decide who may go without the token.
  let controlSocket: String
  let logins = LoginThrottle()
  private let logger: Logger

  private struct Session {
    var csrf: String
    var lastUsed: UInt64
  }
  private struct Sessions {
    var table: [String: Session] = [:]
    var clock: UInt64 = 0
  }
  private let sessions = Mutex(Sessions())

  init(token: AccessToken?, listenHost: String, controlSocket: String, logger: Logger) {
    self.token = token
    self.listenHost = listenHost
    self.controlSocket = controlSocket
    self.logger = logger
  }

  var requiresLogin: Bool { token != nil }

  /// The login form's check: a new session (id, csrf) for the right token.
  func logIn(with candidate: String) -> (session: String, csrf: String)? {
    guard let token, token.matches(candidate) else { return nil }
    let session = Self.randomSecret()
    let csrf = Self.randomSecret()
    let evicted = sessions.withLock { state -> Bool in
      // Bounded, so a login loop cannot grow memory; only the least recently used goes.
      var evicted = false
      if state.table.count >= Self.sessionCapacity,
        let oldest = state.table.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
      {
        state.table.removeValue(forKey: oldest)
        evicted = true
      }
      state.clock += 1
      state.table[session] = Session(csrf: csrf, lastUsed: state.clock)
      return evicted
    }
    if evicted {
      logger.warning(
        "\(Self.sessionCapacity) sessions are open: a new login signed out the least recently used one")
    }
    return (session, csrf)
  }

  func logOut(session: String) { _ = sessions.withLock { $0.table.removeValue(forKey: session) } }

  /// The CSRF value that goes with `session` (or the open one without a token); a use keeps
  /// the session from being the least recently used.
  func csrf(forSession session: String?) -> String? {
    guard requiresLogin else { return openCSRF }
    guard let session else { return nil }
    return sessions.withLock { state in
      guard state.table[session] != nil else { return nil }
      state.clock += 1
      state.table[session]?.lastUsed = state.clock
      return state.table[session]?.csrf
    }
  }

  /// A wrong token from `address`: logged when it shuts the address out.
  func loginFailed(from address: String) {
    if let wait = logins.failed(from: address) {
      logger.warning("wrong access tokens from \(address): its logins are refused for \(wait)")
    }
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
