import ArgumentParser
import FlicProtocol
import Foundation

/// `patchbay-flic` (run as `patchbay flic`): pair Flic buttons with flicd and list the paired
/// ones. It ships with the flic plugin, so the hub's own binary links no network stack.
@main
struct FlicCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay flic", abstract: "Pair Flic buttons with flicd and list them.",
    subcommands: [FlicScanCommand.self, FlicListCommand.self])
}

func printError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Where flicd listens.
struct FlicdOptions: ParsableArguments {
  @Option(help: "flicd's address.") var host = "127.0.0.1"
  @Option(help: "flicd's port.") var port = 5551

  func connect() throws -> FlicdLink {
    do {
      return try FlicdLink(host: host, port: port)
    } catch {
      printError("\(error)")
      throw ExitCode(1)
    }
  }
}

/// Prints a line unbuffered, so progress shows at once also through a pipe.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
