import ArgumentParser
import Foundation

/// `patchbay-hue` (run as `patchbay hue`): helpers for the hue plugin. It ships with the
/// plugin, so the hub's own binary links no HTTP client.
@main
struct HueHelperCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay hue", abstract: "Pair with a Hue bridge.", subcommands: [HuePairCommand.self])
}

/// Prints a line unbuffered, so progress shows at once also through a pipe.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func printError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}
