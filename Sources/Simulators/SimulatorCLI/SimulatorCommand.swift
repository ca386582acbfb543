import ArgumentParser

/// `patchbay-sim`: programs that speak the real protocols of the hub's peers (flicd,
/// Homebridge-websocket, a Hue bridge), for tests, the demo, and trying a config without hardware.
@main
struct SimulatorCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay-sim",
    abstract: "Simulators that speak the real protocols of patchbay's peers.",
    subcommands: simulatorSubcommands)
}
