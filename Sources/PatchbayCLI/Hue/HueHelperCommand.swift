import ArgumentParser

/// `patchbay hue`: helpers for the hue plugin.
struct HueHelperCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "hue", abstract: "Pair with a Hue bridge.", subcommands: [HuePairCommand.self])
}
