import PatchbayValues

/// Reads one `[[routes]]` table (`routes[N]` of its file), each field by its own rule; every
/// mistake in the table is collected, not only the first.
struct RouteTableReader {
  let entry: JSONValue
  let key: String
  let file: String
  private(set) var diagnostics: [ConfigDiagnostic] = []

  init(_ entry: JSONValue, index: Int, file: String) {
    self.entry = entry
    self.key = "routes[\(index + 1)]"
    self.file = file
  }

  private mutating func fail(_ field: String, _ message: String) {
    diagnostics.append(ConfigDiagnostic(file: file, key: "\(key).\(field)", message: message))
  }

  mutating func unknownKeys(_ members: [(String, JSONValue)]) {
    for (name, _) in members where !ConfigLoader.routeKeys.contains(name) {
      fail(name, "unknown route key\(Suggestion.hint(for: name, in: ConfigLoader.routeKeys))")
    }
  }

  mutating func from() -> PortAddress? {
    switch entry["from"] {
    case .string(let text)?:
      if let address = PortAddress(text) { return address }
      fail("from", "must be \"INSTANCE.PORT\", got \"\(text)\"")
    case nil: fail("from", "missing required key: the output port this route reads")
    case let other?: fail("from", "must be \"INSTANCE.PORT\", got \(other.description)")
    }
    return nil
  }

  /// `to` or `cycle_to`: one address or an array of them.
  mutating func addresses(_ field: String) -> [PortAddress] {
    guard let value = entry[field] else { return [] }
    let texts: [JSONValue]
    if case .array(let items) = value { texts = items } else { texts = [value] }
    var result: [PortAddress] = []
    for text in texts {
      guard case .string(let string) = text, let address = PortAddress(string) else {
        fail(field, "must be \"INSTANCE.PORT\" or an array of them, got \(text.description)")
        continue
      }
      result.append(address)
    }
    return result
  }

  /// Exactly one of `to` and `cycle_to`; `cycle_to` alternates, so it needs two targets.
  mutating func checkTargets() {
    if entry["to"] == nil, entry["cycle_to"] == nil {
      fail("to", "missing required key: the input port(s) this route writes")
    }
    if entry["to"] != nil, entry["cycle_to"] != nil { fail("cycle_to", "use either `to` or `cycle_to`, not both") }
    if let cycle = entry["cycle_to"], case .array(let items) = cycle, items.count < 2 {
      fail("cycle_to", "needs at least two targets to alternate between")
    }
  }

  /// An array field with at least `minimum` items (`filter`, `cycle`).
  mutating func array(_ field: String, minimum: Int, _ message: String) -> [JSONValue]? {
    guard let value = entry[field] else { return nil }
    if case .array(let items) = value, items.count >= minimum { return items }
    fail(field, message)
    return nil
  }

  mutating func map() -> [(String, JSONValue)]? {
    guard let value = entry["map"] else { return nil }
    if case .object(let pairs) = value, !pairs.isEmpty { return pairs }
    fail("map", "must be a table from input value to output value, e.g. { click = true }")
    return nil
  }

  mutating func momentary() -> RouteSpec.Momentary? {
    guard let value = entry["momentary"] else { return nil }
    if let reset = value["reset"], let after = value["after_ms"]?.doubleValue, after >= 0, after <= 86_400_000 {
      return RouteSpec.Momentary(reset: reset, afterMs: Int(after))
    }
    fail("momentary", "must be { reset = VALUE, after_ms = MILLISECONDS }")
    return nil
  }

  mutating func name() -> String? {
    guard let value = entry["name"] else { return nil }
    if case .string(let text) = value { return text }
    fail("name", "must be a string")
    return nil
  }

  mutating func condition() -> RouteCondition? {
    guard let value = entry["when"] else { return nil }
    switch RouteCondition.parse(value) {
    case .success(let condition): return condition
    case .failure(let error):
      fail("when", error.message)
      return nil
    }
  }
}
