import PatchbayValues

/// A verified, encrypted session with one accessory: the accessory database, reads, writes,
/// subscriptions and their events, and the admin's /pairings.
public final class HAPClientSession: Sendable {
  public let accessory: HAPPairedAccessory
  private let connection: HAPClientConnection

  init(accessory: HAPPairedAccessory, connection: HAPClientConnection) {
    self.accessory = accessory
    self.connection = connection
  }

  /// The accessory's EVENT values for subscribed characteristics, in arrival order; ends when
  /// the connection closes. One consumer.
  public var events: AsyncStream<HAPCharacteristicValue> { connection.events }

  /// GET /accessories: `{"accessories":[...]}` as the accessory sent it.
  public func accessories() async throws(HAPClientError) -> JSONValue {
    try await json(HTTPRequest(method: "GET", path: "/accessories"))
  }

  /// GET /characteristics: one result per id, in the accessory's order; a per-item error is
  /// a result's status, not a throw.
  public func read(_ ids: [HAPCharacteristicID], fields: HAPReadFields = []) async throws(HAPClientError)
    -> [HAPReadResult]
  {
    var query = [("id", ids.map(\.description).joined(separator: ","))]
    for (name, field) in [("meta", HAPReadFields.meta), ("perms", .perms), ("type", .type), ("ev", .ev)]
    where fields.contains(field) {
      query.append((name, "1"))
    }
    let body = try await json(HTTPRequest(method: "GET", path: "/characteristics", query: query))
    return try Self.items(body).map { id, item in
      var extra = item.objectValue ?? [:]
      for key in ["aid", "iid", "value", "status"] { extra[key] = nil }
      let status = item["status"]?.integerValue.map(HAPStatus.init(rawValue:)) ?? .success
      return HAPReadResult(id: id, status: status, value: item["value"], fields: extra)
    }
  }

  /// PUT /characteristics with values (`r` asks for the value back); one result per write.
  public func write(_ writes: [HAPWrite]) async throws(HAPClientError) -> [HAPWriteResult] {
    let items: [JSONValue] = writes.map { write in
      var members = Self.idMembers(write.id) + [("value", write.value)]
      if write.wantsResponse { members.append(("r", .bool(true))) }
      return .object(members)
    }
    return try await put(items, ids: writes.map(\.id))
  }

  /// PUT /characteristics with `ev`: from now on (or no longer) their changes come as events.
  public func subscribe(_ ids: [HAPCharacteristicID], _ enabled: Bool = true) async throws(HAPClientError)
    -> [HAPWriteResult]
  {
    try await put(ids.map { .object(Self.idMembers($0) + [("ev", .bool(enabled))]) }, ids: ids)
  }

  /// POST /pairings, add (admin only): another controller, or new permissions for one.
  public func addPairing(_ pairing: HAPPairing) async throws(HAPClientError) {
    try checkAnswer(
      try await connection.post(
        "/pairings",
        [
          TLV8.Item(.state, [1]), TLV8.Item(.method, [HAPPairingMethod.addPairing.rawValue]),
          TLV8.Item(.identifier, Array(pairing.identifier.utf8)), TLV8.Item(.publicKey, pairing.publicKey),
          TLV8.Item(.permissions, [pairing.isAdmin ? 1 : 0]),
        ]), step: 2)
  }

  /// POST /pairings, remove (admin only). Removing this session's own pairing ends it.
  public func removePairing(_ identifier: String) async throws(HAPClientError) {
    try checkAnswer(
      try await connection.post(
        "/pairings",
        [
          TLV8.Item(.state, [1]), TLV8.Item(.method, [HAPPairingMethod.removePairing.rawValue]),
          TLV8.Item(.identifier, Array(identifier.utf8)),
        ]), step: 2)
  }

  /// POST /pairings, list (admin only).
  public func listPairings() async throws(HAPClientError) -> [HAPPairing] {
    let answer = try await connection.post(
      "/pairings", [TLV8.Item(.state, [1]), TLV8.Item(.method, [HAPPairingMethod.listPairings.rawValue])])
    try checkAnswer(answer, step: 2)
    var pairings: [HAPPairing] = []
    var current: [TLV8.Item] = []
    func flush() throws(HAPClientError) {
      defer { current = [] }
      guard !current.isEmpty else { return }
      guard let identifier = current[.identifier].flatMap({ String(validating: $0, as: UTF8.self) }),
        let key = current[.publicKey], let permissions = current.byte(.permissions)
      else { throw .malformedResponse("a listed pairing without identifier, key or permissions") }
      pairings.append(HAPPairing(identifier: identifier, publicKey: key, isAdmin: permissions & 1 == 1))
    }
    for item in answer where item.tag != TLV8Tag.state.rawValue {
      if item.tag == TLV8Tag.separator.rawValue { try flush() } else { current.append(item) }
    }
    try flush()
    return pairings
  }

  public func close() async { await connection.close() }

  // MARK: JSON endpoints

  private static func idMembers(_ id: HAPCharacteristicID) -> [(String, JSONValue)] {
    [("aid", .integer(Int64(id.aid))), ("iid", .integer(Int64(id.iid)))]
  }

  /// 204 and empty: every item succeeded; 200 or 207: per-item statuses (and `r` values).
  private func put(_ items: [JSONValue], ids: [HAPCharacteristicID]) async throws(HAPClientError)
    -> [HAPWriteResult]
  {
    let body = JSONValue.object([("characteristics", .array(items))]).description
    let request = HTTPRequest(
      method: "PUT", path: "/characteristics", contentType: "application/hap+json", body: Array(body.utf8))
    let answer = try await json(request)
    if answer == .null { return ids.map { HAPWriteResult(id: $0, status: .success) } }
    return try Self.items(answer).map { id, item in
      HAPWriteResult(
        id: id, status: item["status"]?.integerValue.map(HAPStatus.init(rawValue:)) ?? .success, value: item["value"])
    }
  }

  /// The JSON body of a 2xx answer (`.null` for an empty one); otherwise the HTTP status and
  /// the body's HAP status.
  private func json(_ request: HTTPRequest) async throws(HAPClientError) -> JSONValue {
    let response = try await connection.send(request)
    guard (200..<300).contains(response.status) else {
      throw .httpStatus(response.status, HAPStatus(jsonBody: response.body))
    }
    if response.body.isEmpty { return .null }
    guard let value = JSONValue.parse(String(decoding: response.body, as: UTF8.self)) else {
      throw .malformedResponse("\(request.path) answered with a body that is not JSON")
    }
    return value
  }

  private static func items(_ body: JSONValue) throws(HAPClientError) -> [(HAPCharacteristicID, JSONValue)] {
    guard let list = body["characteristics"]?.arrayValue else {
      throw .malformedResponse("no \"characteristics\" list in the answer")
    }
    var items: [(HAPCharacteristicID, JSONValue)] = []
    for item in list {
      guard let aid = item["aid"]?.integerValue, let iid = item["iid"]?.integerValue else {
        throw .malformedResponse("a characteristic without aid or iid")
      }
      items.append((HAPCharacteristicID(aid: aid, iid: iid), item))
    }
    return items
  }
}
