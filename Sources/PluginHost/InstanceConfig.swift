import PatchbayValues

/// The instance's config, read through the `config_*` accessors of the host table.
/// Strings handed out stay allocated for the life of the process (the ABI promises
/// "until destroy", and the process ends soon after).
final class InstanceConfig: @unchecked Sendable {
  let root: JSONValue
  private var retainedStrings: [String: UnsafeMutablePointer<CChar>] = [:]

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

  func retained(_ string: String) -> UnsafePointer<CChar> {
    if let existing = retainedStrings[string] { return UnsafePointer(existing) }
    let copy = strdup(string)!
    retainedStrings[string] = copy
    return UnsafePointer(copy)
  }
}

#if canImport(Glibc)
  import Glibc
#endif
