import PatchbayValues

/// The instance's config, read through the `config_*` accessors of the host table (the C
/// strings they hand out are kept by `RetainedStrings`).
struct InstanceConfig: Sendable {
  let root: JSONValue

  init(json: String) {
    root = JSONValue.parse(json) ?? .object([])
  }

  /// Follows a dotted path; numeric segments index arrays.
  func lookup(_ path: String) -> JSONValue? {
    var current = root
    guard !path.isEmpty else { return root }
    for segment in path.split(separator: ".", omittingEmptySubsequences: false) {
      switch current {
      case .object(let members):
        guard let next = members.first(where: { $0.0 == segment })?.1 else { return nil }
        current = next
      case .array(let items):
        guard let index = Int(segment), items.indices.contains(index) else { return nil }
        current = items[index]
      default:
        return nil
      }
    }
    return current
  }
}
