import ArgumentParser

public struct FlicdCommand: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(commandName: "flicd")
  public init() {}
  public func run() async throws {}
}
