import NIOCore

/// The controller role: pair with an accessory by its setup code, then open verified,
/// encrypted sessions to it. Keeps nothing itself: the caller stores the identity and the
/// `HAPPairedAccessory` pair-setup returns.
public struct HAPController: Sendable {
  public let identity: HAPControllerIdentity
  private let group: any EventLoopGroup
  /// How long one request may wait for its answer before the connection is given up.
  public let requestTimeout: TimeAmount

  public init(identity: HAPControllerIdentity, group: any EventLoopGroup, requestTimeout: TimeAmount = .seconds(30)) {
    self.identity = identity
    self.group = group
    self.requestTimeout = requestTimeout
  }

  /// Pair-setup M1–M6 with `code` on a connection of its own; the accessory stores us as admin.
  public func pairSetup(host: String, port: Int, code: HAPSetupCode) async throws(HAPClientError)
    -> HAPPairedAccessory
  {
    let connection = try await HAPClientConnection.connect(
      host: host, port: port, group: group, requestTimeout: requestTimeout)
    do {
      var setup = ControllerPairSetup(code: code, controller: identity)
      let m2 = try await connection.post("/pair-setup", ControllerPairSetup.m1)
      let m4 = try await connection.post("/pair-setup", try setup.m3(answering: m2))
      let m6 = try await connection.post("/pair-setup", try setup.m5(answering: m4))
      let accessory = try setup.accessory(answering: m6)
      await connection.close()
      return accessory
    } catch {
      await connection.close()
      throw error
    }
  }

  /// A connection, pair-verified: the accessory proves it is `accessory`, we prove we are a
  /// controller it knows (`.pairing(.authentication, step: 4)` when it no longer does).
  public func connect(host: String, port: Int, accessory: HAPPairedAccessory) async throws(HAPClientError)
    -> HAPClientSession
  {
    let connection = try await HAPClientConnection.connect(
      host: host, port: port, group: group, requestTimeout: requestTimeout)
    do {
      var verify = ControllerPairVerify(controller: identity, accessory: accessory)
      let m2 = try await connection.post("/pair-verify", verify.m1)
      let m4 = try await connection.post("/pair-verify", try verify.m3(answering: m2))
      try await connection.startEncryption(try verify.sessionKeys(answering: m4))
      return HAPClientSession(accessory: accessory, connection: connection)
    } catch {
      await connection.close()
      throw error
    }
  }
}
