import PatchbayValues

/// `when` on a route: the route fires only while a state output's retained value matches.
/// Declarative and type-checked: `when = { port = "home.mode", equals = "away" }`,
/// `{ port = "bedroom.light.state", field = "on", not_equals = true }`, or the short form
/// `when = "bedroom.light.state.on == false"` (a trailing `.FIELD` after the port picks a member
/// of a light, color or button value).
public struct RouteCondition: Sendable, Equatable {
  /// The port address, possibly followed by `.FIELD`; resolved against the declared ports.
  public var subject: String
  public var field: String?
  public var expected: JSONValue
  public var negated: Bool

  public var description: String { "\(subject)\(field.map { "." + $0 } ?? "") \(negated ? "!=" : "==") \(expected)" }

  /// Reads the table or the `A == B` / `A != B` text; nil and a message when it is neither.
  package static func parse(_ json: JSONValue) -> Result<RouteCondition, ConditionSyntaxError> {
    func failure(_ message: String) -> Result<RouteCondition, ConditionSyntaxError> {
      .failure(ConditionSyntaxError(message))
    }
    let usage =
      "must be \"PORT == VALUE\", \"PORT != VALUE\" or { port = \"INSTANCE.PORT\", equals = VALUE } (or not_equals; field for a member)"
    switch json {
    case .string(let text):
      for (operatorText, negated) in [("!=", true), ("==", false)] {
        guard let range = text.range(of: operatorText) else { continue }
        let subject = text[..<range.lowerBound].trimmingSpaces
        let right = text[range.upperBound...].trimmingSpaces
        guard !subject.isEmpty, !right.isEmpty else { return failure(usage) }
        // A bare word is text (`== away`); anything JSON reads is itself (`== false`, `== 3`).
        let expected = JSONValue.parse(right) ?? .string(right)
        return .success(RouteCondition(subject: subject, field: nil, expected: expected, negated: negated))
      }
      return failure(usage)
    case .object:
      guard case .string(let port)? = json["port"] else { return failure(usage) }
      var field: String?
      if let value = json["field"] {
        guard case .string(let text) = value else { return failure("field must be a string, like \"on\"") }
        field = text
      }
      let equals = json["equals"]
      let notEquals = json["not_equals"]
      guard (equals == nil) != (notEquals == nil), let expected = equals ?? notEquals else {
        return failure("give exactly one of equals and not_equals")
      }
      if case .object(let members) = json,
        let unknown = members.map(\.0).first(where: { !["port", "field", "equals", "not_equals"].contains($0) })
      {
        return failure(
          "unknown key '\(unknown)'" + Suggestion.hint(for: unknown, in: ["port", "field", "equals", "not_equals"]))
      }
      return .success(RouteCondition(subject: port, field: field, expected: expected, negated: notEquals != nil))
    default:
      return failure(usage)
    }
  }
}

/// Why a `when` could not be read.
package struct ConditionSyntaxError: Error {
  package var message: String
  package init(_ message: String) { self.message = message }
}

/// A condition checked against the declared ports: the state output it reads and the value
/// (or member) it compares with, typed.
public struct CompiledCondition: Sendable {
  public var source: PortAddress
  public var field: String?
  public var expected: Value?
  public var expectedMember: JSONValue?
  public var negated: Bool

  /// Whether the route may fire, given the retained value of `source` (none yet: it may not).
  public func holds(for retained: Value?) -> Bool {
    guard let retained else { return false }
    let equal: Bool
    if let field {
      equal = Self.sameJSON(retained.json[field], expectedMember)
    } else {
      equal = retained == expected
    }
    return equal != negated
  }

  package static func sameJSON(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
    if let x = a?.doubleValue, let y = b?.doubleValue { return x == y }
    return a == b
  }

  /// Members a `field` may name, by value type.
  package static let members: [ValueType: [String]] = [
    .light: ["on", "brightness", "color", "color_temperature", "transition_ms"],
    .color: ["hue", "saturation", "brightness"], .button: ["action", "queued", "age_ms"],
  ]

  package static func compile(
    _ condition: RouteCondition, catalog: PortCatalog, fail: (String, String) -> Void
  ) -> CompiledCondition? {
    // The subject is a port, or a port and a field: try the whole text first.
    var subject = condition.subject
    var field = condition.field
    func declared(_ text: String) -> Bool {
      guard let address = PortAddress(text) else { return false }
      return catalog[address.instance]?.contains(where: { $0.name == address.port }) == true
    }
    // Split off a field only when what is left is a port (else the error names the whole).
    if field == nil, !declared(subject), let dot = subject.lastIndex(of: "."), declared(String(subject[..<dot])) {
      field = String(subject[subject.index(after: dot)...])
      subject = String(subject[..<dot])
    }
    guard let address = PortAddress(subject) else {
      fail("when", "'\(condition.subject)' is not INSTANCE.PORT")
      return nil
    }
    guard let port = RouteCompiler.resolve(address, field: "when", direction: .output, catalog: catalog, fail) else {
      return nil
    }
    guard port.kind == .state else {
      fail("when", "'\(address)' is an event port; a condition reads a state output's retained value")
      return nil
    }
    if let field {
      let allowed = members[port.type] ?? []
      guard allowed.contains(field) else {
        fail(
          "when",
          "\(address) is \(port.type.name): "
            + (allowed.isEmpty
              ? "it has no members to pick with '.\(field)'"
              : "no member '\(field)'\(Suggestion.hint(for: field, in: allowed)) (members: \(allowed.joined(separator: ", ")))")
        )
        return nil
      }
      return CompiledCondition(
        source: address, field: field, expected: nil, expectedMember: condition.expected, negated: condition.negated)
    }
    do throws(ValueParseError) {
      let expected = try Value.fromJSON(condition.expected, as: port.type)
      return CompiledCondition(
        source: address, field: nil, expected: expected, expectedMember: nil, negated: condition.negated)
    } catch {
      fail("when", "\(address) is \(port.type.name): \(error.description)")
      return nil
    }
  }
}

extension Substring {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
