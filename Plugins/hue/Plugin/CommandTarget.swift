/// Where a command goes on the bridge: one light's state or one group's action.
enum CommandTarget: Sendable, Hashable, CustomStringConvertible {
  case light(String)
  case group(String)

  /// The resource path under `/api/USERNAME`.
  var path: String {
    switch self {
    case .light(let id): "/lights/\(id)/state"
    case .group(let id): "/groups/\(id)/action"
    }
  }

  var isGroup: Bool { if case .group = self { true } else { false } }

  var description: String {
    switch self {
    case .light(let id): "light \(id)"
    case .group(let id): "group \(id)"
    }
  }
}
