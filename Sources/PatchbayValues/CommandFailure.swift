/// A command-line tool's failure at run time (a pairing refused, a hub that is running, a file
/// that cannot be opened), as opposed to a usage mistake: swift-argument-parser prints
/// `Error: <description>` and exits 1, without the usage lines it adds to a `ValidationError`
/// (exit 64). Every `patchbay` subcommand and plugin tool throws this for what went wrong while
/// it ran.
public struct CommandFailure: Error, CustomStringConvertible, Sendable {
  public let description: String

  public init(_ description: String) { self.description = description }
}
