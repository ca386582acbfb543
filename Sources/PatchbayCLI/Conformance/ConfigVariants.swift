import PatchbayValues

/// The configs the checker creates the plugin with besides the given one, each in its own
/// process: none at all, and for each top-level key, the key left out and the key with a value
/// of another type. A plugin may accept them (a key with a default, a key it ignores) or refuse
/// them with PB_ERR_INVALID_CONFIG and a message; it must not crash, hang or answer otherwise.
struct ConfigVariant: Sendable {
  var label: String
  var config: JSONValue

  /// At most this many keys are varied: each variant is a process of its own.
  static let keyLimit = 12

  static func variants(of config: JSONValue) -> [ConfigVariant] {
    var variants = [ConfigVariant(label: "an empty config", config: .object([]))]
    guard case .object(let members) = config else { return variants }
    for (index, member) in members.prefix(keyLimit).enumerated() {
      var without = members
      without.remove(at: index)
      if !without.isEmpty {
        variants.append(ConfigVariant(label: "key '\(member.0)' missing", config: .object(without)))
      }
      var mistyped = members
      let wrong = wrongValue(for: member.1)
      mistyped[index] = (member.0, wrong.value)
      variants.append(ConfigVariant(label: "key '\(member.0)' \(wrong.label)", config: .object(mistyped)))
    }
    return variants
  }

  /// A value of another type than `value`, and how to say so.
  private static func wrongValue(for value: JSONValue) -> (value: JSONValue, label: String) {
    switch value {
    case .string: (.integer(7), "an integer instead of a string")
    case .integer, .number: (.string("seven"), "a string instead of a number")
    case .bool: (.string("yes"), "a string instead of a boolean")
    case .array: (.string("conformance"), "a string instead of an array")
    case .object: (.string("conformance"), "a string instead of a table")
    case .null: (.integer(7), "an integer instead of null")
    }
  }
}
