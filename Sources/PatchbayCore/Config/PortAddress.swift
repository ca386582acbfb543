/// `INSTANCE.PORT`: the instance name is everything before the first dot, the port the rest
/// (port names may contain dots, e.g. `buttons.bedside.button`).
public struct PortAddress: Sendable, Hashable, CustomStringConvertible {
  public var instance: String
  public var port: String

  public init(instance: String, port: String) {
    self.instance = instance
    self.port = port
  }

  public init?(_ text: String) {
    guard let dot = text.firstIndex(of: "."), dot != text.startIndex, text.index(after: dot) != text.endIndex else {
      return nil
    }
    instance = String(text[..<dot])
    port = String(text[text.index(after: dot)...])
  }

  public var description: String { "\(instance).\(port)" }
}
