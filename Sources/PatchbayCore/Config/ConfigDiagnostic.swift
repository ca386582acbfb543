/// One problem in the configuration: where it is and what would be right.
public struct ConfigDiagnostic: Error, Sendable, Equatable, CustomStringConvertible {
  public var file: String
  /// Dotted key path, e.g. `instances.bedside.plugin` or `routes[2].to`.
  public var key: String?
  public var line: Int?
  public var column: Int?
  public var message: String

  public init(file: String, key: String? = nil, line: Int? = nil, column: Int? = nil, message: String) {
    self.file = file
    self.key = key
    self.line = line
    self.column = column
    self.message = message
  }

  /// `file:line:column: key: message`, the shape editors and `grep` understand.
  public var description: String {
    var location = file
    if let line { location += ":\(line)" }
    if let column { location += ":\(column)" }
    if let key { return "\(location): \(key): \(message)" }
    return "\(location): \(message)"
  }
}

/// Every problem found in one pass, so the user fixes them all at once.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
  public var diagnostics: [ConfigDiagnostic]
  public init(_ diagnostics: [ConfigDiagnostic]) { self.diagnostics = diagnostics }
  public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
