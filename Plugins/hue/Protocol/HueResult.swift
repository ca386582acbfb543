import PatchbayValues

/// One entry of a bridge answer to PUT or POST: a success naming the attribute it set, or an
/// error. Answers are HTTP 200 either way and may mix both, one entry per attribute.
public enum HueResult: Sendable, Hashable {
  /// `{"success":{"/lights/1/state/bri":200}}`; also `{"success":{"username":"..."}}` after pairing.
  case success(address: String, value: JSONValue)
  case failure(HueAPIError)

  public var json: JSONValue {
    switch self {
    case .success(let address, let value): .sortedObject(["success": .sortedObject([address: value])])
    case .failure(let error): error.json
    }
  }
}

extension Array where Element == HueResult {
  public var errors: [HueAPIError] {
    compactMap { if case .failure(let error) = $0 { error } else { nil } }
  }

  public var successes: [(address: String, value: JSONValue)] {
    compactMap { if case .success(let address, let value) = $0 { (address, value) } else { nil } }
  }

  /// The answer as the bridge writes it.
  public var json: JSONValue { .array(map(\.json)) }
}
