import Logging
import NIOCore
import PatchbayValues

/// What a connection looks like to the router when a request arrives (a copy: the connection
/// owns the real state on its event loop).
struct HAPConnectionSnapshot: Sendable {
  var id: Int
  /// The pairing id, once pair-verify succeeded.
  var controller: String?
  var pairVerify: PairVerify?
  var subscriptions: Set<HAPCharacteristicID>
  /// A `/prepare` pid still within its ttl.
  var preparedWrite: UInt64?
}

/// The answer to one request and what it changes on the connection, applied on its event loop
/// after the response is written (so M4 goes out in plaintext and the next byte is encrypted).
struct HAPRouterOutcome: Sendable {
  enum Effect: Sendable {
    case pairVerifyStarted(PairVerify)
    case verified(controller: String, keys: HAPSessionKeys)
    case subscribe(HAPCharacteristicID, Bool)
    case prepared(pid: UInt64, deadline: NIODeadline)
    case preparedWriteUsed
    case close
  }
  var response: HTTPResponse
  var effects: [Effect] = []
}

/// The endpoints: from one request (and its connection's state) to a response and effects.
struct HAPRequestRouter: Sendable {
  let identity: HAPAccessoryIdentity
  let authority: HAPPairingAuthority
  let delegate: any HAPAccessoryDelegate
  let logger: Logger
  /// Closes the sessions of controllers whose pairing was removed (not the asking connection).
  let closeSessions: @Sendable ([String], _ except: Int) -> Void

  func route(_ request: HTTPRequest, _ connection: HAPConnectionSnapshot) async -> HAPRouterOutcome {
    switch (request.method, request.path) {
    case ("POST", "/pair-setup"):
      guard let items = try? TLV8.decode(request.body) else {
        return HAPRouterOutcome(response: HTTPResponse(status: 400))
      }
      return HAPRouterOutcome(response: .tlv(await authority.pairSetup(items, connection: connection.id)))
    case ("POST", "/pair-verify"):
      return await pairVerify(request, connection)
    case ("POST", "/identify"):
      if await authority.isPaired { return HAPRouterOutcome(response: .status(400, .insufficientPrivileges)) }
      await delegate.identify()
      return HAPRouterOutcome(response: HTTPResponse(status: 204))
    default:
      break
    }
    guard let controller = connection.controller else {
      return HAPRouterOutcome(response: .status(470, .insufficientAuthorization))
    }
    switch (request.method, request.path) {
    case ("GET", "/accessories"):
      return HAPRouterOutcome(response: .json(200, await delegate.accessoryDatabase()))
    case ("GET", "/characteristics"):
      return await read(request, connection)
    case ("PUT", "/characteristics"):
      return await write(request, connection, controller: controller)
    case ("PUT", "/prepare"):
      guard let body = JSONValue.parse(String(decoding: request.body, as: UTF8.self)),
        let ttl = body["ttl"]?.integerValue, let pid = body["pid"]?.integerValue, ttl >= 0, pid >= 0
      else { return HAPRouterOutcome(response: .status(400, .invalidValue)) }
      return HAPRouterOutcome(
        response: .status(200, .success),
        effects: [.prepared(pid: UInt64(pid), deadline: .now() + .milliseconds(Int64(ttl)))])
    case ("POST", "/pairings"):
      guard let items = try? TLV8.decode(request.body) else {
        return HAPRouterOutcome(response: HTTPResponse(status: 400))
      }
      let (response, removed) = await authority.pairings(items, controller: controller)
      if !removed.isEmpty { closeSessions(removed, connection.id) }
      return HAPRouterOutcome(response: .tlv(response), effects: removed.contains(controller) ? [.close] : [])
    case (_, "/accessories"), (_, "/characteristics"), (_, "/prepare"), (_, "/pairings"):
      return HAPRouterOutcome(response: HTTPResponse(status: 405))
    default:
      return HAPRouterOutcome(response: HTTPResponse(status: 404))
    }
  }

  private func pairVerify(_ request: HTTPRequest, _ connection: HAPConnectionSnapshot) async -> HAPRouterOutcome {
    guard let items = try? TLV8.decode(request.body) else {
      return HAPRouterOutcome(response: HTTPResponse(status: 400))
    }
    let failure = { (step: UInt8) in
      HAPRouterOutcome(
        response: .tlv([TLV8.Item(.state, [step]), TLV8.Item(.error, [HAPPairingError.authentication.rawValue])]))
    }
    switch items.byte(.state) {
    case 1:
      guard let verify = PairVerify(m1: items) else { return failure(2) }
      return HAPRouterOutcome(response: .tlv(verify.m2(identity: identity)), effects: [.pairVerifyStarted(verify)])
    case 3:
      guard let verify = connection.pairVerify, let claim = verify.claimedIdentifier(m3: items),
        let pairing = await authority.pairing(claim.identifier), verify.verify(signature: claim.signature, of: pairing)
      else { return failure(4) }
      logger.debug("connection \(connection.id) verified as controller \(pairing.identifier)")
      return HAPRouterOutcome(
        response: .tlv([TLV8.Item(.state, [4])]),
        effects: [.verified(controller: pairing.identifier, keys: HAPSessionKeys(sharedSecret: verify.sharedSecret))])
    default:
      return failure(2)
    }
  }

  /// `GET /characteristics?id=1.10,2.10&meta=1&perms=1&type=1&ev=1`
  private func read(_ request: HTTPRequest, _ connection: HAPConnectionSnapshot) async -> HAPRouterOutcome {
    guard let list = request.queryValue("id") else { return HAPRouterOutcome(response: .status(400, .invalidValue)) }
    var ids: [HAPCharacteristicID] = []
    for item in list.split(separator: ",") {
      let parts = item.split(separator: ".")
      guard parts.count == 2, let aid = Int(parts[0]), let iid = Int(parts[1]) else {
        return HAPRouterOutcome(response: .status(400, .invalidValue))
      }
      ids.append(HAPCharacteristicID(aid: aid, iid: iid))
    }
    var fields: HAPReadFields = []
    for (name, field) in [("meta", HAPReadFields.meta), ("perms", .perms), ("type", .type), ("ev", .ev)]
    where request.queryValue(name) == "1" {
      fields.insert(field)
    }
    let results = await delegate.readCharacteristics(ids, fields: fields)
    let allGood = results.allSatisfy { $0.status == .success }
    let items: [JSONValue] = results.map { result in
      var members: [(String, JSONValue)] = [
        ("aid", .integer(Int64(result.id.aid))), ("iid", .integer(Int64(result.id.iid))),
      ]
      if result.status == .success {
        members.append(("value", result.value ?? .null))
        for key in result.fields.keys.sorted() { members.append((key, result.fields[key]!)) }
        if fields.contains(.ev) { members.append(("ev", .bool(connection.subscriptions.contains(result.id)))) }
      }
      if !allGood { members.append(("status", .integer(Int64(result.status.rawValue)))) }
      return .object(members)
    }
    return HAPRouterOutcome(response: .json(allGood ? 200 : 207, .object([("characteristics", .array(items))])))
  }

  /// `PUT /characteristics {"characteristics":[{"aid","iid","value"?,"ev"?,"r"?}], "pid"?}`
  private func write(_ request: HTTPRequest, _ connection: HAPConnectionSnapshot, controller: String) async
    -> HAPRouterOutcome
  {
    guard let body = JSONValue.parse(String(decoding: request.body, as: UTF8.self)),
      let list = body["characteristics"]?.arrayValue
    else { return HAPRouterOutcome(response: .status(400, .invalidValue)) }
    var effects: [HAPRouterOutcome.Effect] = []
    var isTimed = false
    if let pid = body["pid"]?.integerValue {
      isTimed = connection.preparedWrite == UInt64(exactly: pid)
      effects.append(.preparedWriteUsed)
    }
    // Per item, in order: its status and, for "r", the value to answer with.
    var answers: [(id: HAPCharacteristicID, status: HAPStatus, value: JSONValue?)] = []
    var writes: [HAPWrite] = []
    var writeIndex: [Int] = []
    for item in list {
      guard let aid = item["aid"]?.integerValue, let iid = item["iid"]?.integerValue else {
        return HAPRouterOutcome(response: .status(400, .invalidValue))
      }
      let id = HAPCharacteristicID(aid: aid, iid: iid)
      answers.append((id, .success, nil))
      if let ev = item["ev"] {
        guard let on = ev.boolValue ?? ev.integerValue.map({ $0 != 0 }) else {
          answers[answers.count - 1].status = .invalidValue
          continue
        }
        let status = await delegate.eventStatus(id)
        answers[answers.count - 1].status = status
        if status == .success { effects.append(.subscribe(id, on)) }
      }
      if let value = item["value"], answers[answers.count - 1].status == .success {
        let wantsResponse = item["r"]?.boolValue ?? (item["r"]?.integerValue == 1)
        writes.append(HAPWrite(id: id, value: value, wantsResponse: wantsResponse, isTimed: isTimed))
        writeIndex.append(answers.count - 1)
      }
    }
    if !writes.isEmpty {
      // The change this write causes is not echoed to this session (HAPServer.notify reads it).
      let results = await HAPServer.$writingConnection.withValue(connection.id) {
        await delegate.writeCharacteristics(writes, controller: controller)
      }
      for (offset, index) in writeIndex.enumerated() {
        guard offset < results.count else {
          answers[index].status = .serviceCommunicationFailure
          continue
        }
        answers[index].status = results[offset].status
        if writes[offset].wantsResponse, results[offset].status == .success {
          answers[index].value = results[offset].value
        }
      }
    }
    if answers.allSatisfy({ $0.status == .success && $0.value == nil }) {
      return HAPRouterOutcome(response: HTTPResponse(status: 204), effects: effects)
    }
    let items: [JSONValue] = answers.map { answer in
      var members: [(String, JSONValue)] = [
        ("aid", .integer(Int64(answer.id.aid))), ("iid", .integer(Int64(answer.id.iid))),
        ("status", .integer(Int64(answer.status.rawValue))),
      ]
      if let value = answer.value { members.append(("value", value)) }
      return .object(members)
    }
    return HAPRouterOutcome(response: .json(207, .object([("characteristics", .array(items))])), effects: effects)
  }
}
