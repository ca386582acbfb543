import ArgumentParser

/// `patchbay demo`: runs `patchbay-sim demo`, which lives with the simulators it drives (this
/// binary links none of them), found beside this `patchbay`: both are in .build/debug after
/// `swift build`, both in /usr/bin when installed.
struct DemoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract:
      "Show the bedside story against the simulators: press -> route -> HomeKit switch -> scene, then party lights.",
    discussion: "Runs `patchbay-sim demo` (package patchbay-sim) with the same options.")

  @Flag(help: "Keep everything running afterwards and take button presses from the keyboard.")
  var interactive = false

  @Flag(help: "The story without HomeKit: the button toggles the hub's own scenes, a schedule lights the hall.")
  var standalone = false

  @Flag(
    help: "The story with a simulated Flic 2 through a BlueZ stand-in on a private system bus (flic-ble, no flicd).")
  var ble = false

  @Option(help: "Keep the demo's files (config, state, hub log) in this directory.")
  var directory: String?

  func run() throws {
    var arguments = ["demo"]
    if interactive { arguments.append("--interactive") }
    if standalone { arguments.append("--standalone") }
    if ble { arguments.append("--ble") }
    if let directory { arguments += ["--directory", directory] }
    try PluginHelper.exec("patchbay-sim", package: "patchbay-sim", arguments)
  }
}
