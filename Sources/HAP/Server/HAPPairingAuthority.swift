import Logging

/// The one owner of the pairing state while the server runs: pair-setup (one at a time),
/// the pairing rules, `/pairings`, and persisting every change through the delegate first.
actor HAPPairingAuthority {
  private let identity: HAPAccessoryIdentity
  private let code: HAPSetupCode
  private let delegate: any HAPAccessoryDelegate
  private let logger: Logger
  private(set) var state: HAPPairingState
  private var setup: PairSetup?

  init(
    identity: HAPAccessoryIdentity, code: HAPSetupCode, state: HAPPairingState, delegate: any HAPAccessoryDelegate,
    logger: Logger
  ) {
    self.identity = identity
    self.code = code
    self.state = state
    self.delegate = delegate
    self.logger = logger
  }

  func pairing(_ identifier: String) -> HAPPairing? { state.pairings.first { $0.identifier == identifier } }
  var isPaired: Bool { state.isPaired }

  /// A connection went away: a pair-setup it started no longer blocks others.
  func connectionClosed(_ connection: Int) {
    if setup?.connection == connection { setup = nil }
  }

  /// Persists `new` first; the state changes only if that worked.
  private func commit(_ new: HAPPairingState) async -> Bool {
    do {
      try await delegate.pairingStateChanged(new)
      state = new
      return true
    } catch {
      logger.error("the pairing state could not be saved, keeping the old one: \(error)")
      return false
    }
  }

  private static func error(_ step: UInt8, _ error: HAPPairingError) -> [TLV8.Item] {
    [TLV8.Item(.state, [step]), TLV8.Item(.error, [error.rawValue])]
  }

  // MARK: pair-setup

  func pairSetup(_ request: [TLV8.Item], connection: Int) async -> [TLV8.Item] {
    switch request.byte(.state) {
    case 1: return setupM1(request, connection: connection)
    case 3: return await setupM3(request, connection: connection)
    case 5: return await setupM5(request, connection: connection)
    default: return Self.error(2, .unknown)
    }
  }

  private func setupM1(_ request: [TLV8.Item], connection: Int) -> [TLV8.Item] {
    if state.isPaired { return Self.error(2, .unavailable) }
    if state.failedSetupAttempts >= HAPPairingState.maximumFailedSetupAttempts { return Self.error(2, .maxTries) }
    if let setup, setup.connection != connection, ContinuousClock.now - setup.started < PairSetup.abandonedAfter {
      return Self.error(2, .busy)
    }
    let srp = SRPServer(code: code)
    setup = PairSetup(connection: connection, srp: srp)
    return [TLV8.Item(.state, [2]), TLV8.Item(.salt, srp.salt), TLV8.Item(.publicKey, srp.publicKey)]
  }

  private func setupM3(_ request: [TLV8.Item], connection: Int) async -> [TLV8.Item] {
    guard let current = setup, current.connection == connection, current.sessionKey == nil,
      let clientKey = request[.publicKey], let proof = request[.proof]
    else { return Self.error(4, .unknown) }
    guard let (sessionKey, serverProof) = current.srp.verify(clientPublicKey: clientKey, clientProof: proof) else {
      setup = nil
      var failed = state
      failed.failedSetupAttempts += 1
      logger.warning("pair-setup with a wrong setup code (failed attempt \(failed.failedSetupAttempts))")
      _ = await commit(failed)
      return Self.error(4, .authentication)
    }
    setup?.sessionKey = sessionKey
    return [TLV8.Item(.state, [4]), TLV8.Item(.proof, serverProof)]
  }

  private func setupM5(_ request: [TLV8.Item], connection: Int) async -> [TLV8.Item] {
    guard let current = setup, current.connection == connection, current.sessionKey != nil else {
      return Self.error(6, .unknown)
    }
    setup = nil
    guard let pairing = current.controllerPairing(from: request) else { return Self.error(6, .authentication) }
    if state.isPaired { return Self.error(6, .unavailable) }
    guard await commit(HAPPairingState(pairings: [pairing], failedSetupAttempts: 0)) else {
      return Self.error(6, .unknown)
    }
    logger.info("paired with controller \(pairing.identifier)")
    return [TLV8.Item(.state, [6]), TLV8.Item(.encryptedData, current.accessoryProof(identity: identity))]
  }

  // MARK: /pairings

  /// Add, remove or list; `removed` are the controllers whose sessions must close.
  func pairings(_ request: [TLV8.Item], controller: String) async -> (response: [TLV8.Item], removed: [String]) {
    guard request.byte(.state) == 1, let method = request.byte(.method).flatMap(HAPPairingMethod.init(rawValue:))
    else { return (Self.error(2, .unknown), []) }
    guard pairing(controller)?.isAdmin == true else { return (Self.error(2, .authentication), []) }
    switch method {
    case .addPairing:
      guard let identifier = request[.identifier].flatMap({ String(validating: $0, as: UTF8.self) }),
        let key = request[.publicKey], key.count == 32, let permissions = request.byte(.permissions)
      else { return (Self.error(2, .unknown), []) }
      var new = state
      if let index = new.pairings.firstIndex(where: { $0.identifier == identifier }) {
        guard new.pairings[index].publicKey == key else { return (Self.error(2, .unknown), []) }
        new.pairings[index].isAdmin = permissions & 1 == 1
      } else {
        guard new.pairings.count < HAPPairingState.maximumPairings else { return (Self.error(2, .maxPeers), []) }
        new.pairings.append(HAPPairing(identifier: identifier, publicKey: key, isAdmin: permissions & 1 == 1))
      }
      guard await commit(new) else { return (Self.error(2, .unknown), []) }
      logger.info("controller \(controller) added pairing \(identifier) (admin: \(permissions & 1 == 1))")
      return ([TLV8.Item(.state, [2])], [])
    case .removePairing:
      guard let identifier = request[.identifier].flatMap({ String(validating: $0, as: UTF8.self) }) else {
        return (Self.error(2, .unknown), [])
      }
      var new = state
      new.pairings.removeAll { $0.identifier == identifier }
      // Removing the last admin unpairs the accessory entirely.
      if !new.pairings.contains(where: \.isAdmin) { new.pairings = [] }
      let removed = state.pairings.map(\.identifier).filter { id in !new.pairings.contains { $0.identifier == id } }
      guard await commit(new) else { return (Self.error(2, .unknown), []) }
      logger.info("controller \(controller) removed pairing \(identifier); removed: \(removed)")
      return ([TLV8.Item(.state, [2])], removed)
    case .listPairings:
      var items = [TLV8.Item(.state, [2])]
      for pairing in state.pairings {
        if items.count > 1 { items.append(TLV8.Item(.separator, [])) }
        items += [
          TLV8.Item(.identifier, Array(pairing.identifier.utf8)), TLV8.Item(.publicKey, pairing.publicKey),
          TLV8.Item(.permissions, [pairing.isAdmin ? 1 : 0]),
        ]
      }
      return (items, [])
    default:
      return (Self.error(2, .unknown), [])
    }
  }
}
