/// Why a controller request failed.
public enum HAPClientError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The accessory answered a pairing message (pair-setup, pair-verify, /pairings) with a TLV
  /// error at `step` (the state of its answer): `.authentication` for a wrong setup code or an
  /// unknown controller, `.unavailable` when already paired, `.busy`, `.maxTries`, ...
  case pairing(HAPPairingError, step: Int)
  /// The accessory could not prove who it is (wrong proof or signature, another device id
  /// than the pairing's): the setup code or the stored pairing does not belong to it.
  case accessoryNotAuthenticated(String)
  /// An HTTP status other than success, with the body's HAP `status` when it had one
  /// (470 + -70411 before pair-verify, 400 + -70401 for a non-admin's /pairings, ...).
  case httpStatus(Int, HAPStatus?)
  /// The accessory's answer was not what the protocol says.
  case malformedResponse(String)
  /// The TCP connection could not be made.
  case connectFailed(String)
  /// The connection closed before the answer came.
  case connectionClosed
  /// No answer within the request timeout: the connection was closed.
  case timedOut(seconds: Int)

  /// A wrong setup code, a pairing the accessory no longer has, or an accessory that is not
  /// the one paired with.
  public var isAuthentication: Bool {
    switch self {
    case .pairing(.authentication, _), .accessoryNotAuthenticated: true
    default: false
    }
  }

  public var description: String {
    switch self {
    case .pairing(let error, let step):
      let meaning =
        switch error {
        case .authentication: "authentication failed (wrong setup code, or the accessory does not know this controller)"
        case .unavailable: "unavailable (the accessory is already paired)"
        case .busy: "busy (another controller is pairing)"
        case .maxTries: "too many failed attempts (reset the accessory's pairing)"
        case .maxPeers: "no room for another controller"
        case .backoff: "try again later"
        case .unknown: "unknown error"
        }
      return "the accessory refused at M\(step): \(meaning)"
    case .accessoryNotAuthenticated(let why): return "the accessory is not who it claims: \(why)"
    case .httpStatus(let status, let hap):
      return "the accessory answered HTTP \(status)" + (hap.map { " (HAP status \($0.rawValue))" } ?? "")
    case .malformedResponse(let why): return "malformed answer from the accessory: \(why)"
    case .connectFailed(let why): return "cannot connect to the accessory: \(why)"
    case .connectionClosed: return "the accessory closed the connection"
    case .timedOut(let seconds): return "the accessory did not answer within \(seconds) s"
    }
  }
}
