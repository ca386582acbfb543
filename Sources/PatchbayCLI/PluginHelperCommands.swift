import ArgumentParser
import Foundation
import PatchbayHub

#if canImport(Glibc)
  import Glibc
#endif

// Per-plugin helper commands (`patchbay flic scan`, `patchbay hue pair`). Each lives with its
// plugin as its own program (`patchbay-flic`, `patchbay-hue`, installed with the plugin's
// package), so the hub's binary links neither SwiftNIO nor an HTTP client; these run them.
let pluginHelperCommands: [any ParsableCommand.Type] = [
  FlicHelper.self, FlicBLEHelper.self, HueHelper.self, HomeKitHelper.self, HomeKitControllerHelper.self,
]

struct FlicHelper: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "flic", abstract: "Pair Flic buttons with flicd and list them (runs patchbay-flic: scan, list).")
  @Argument(parsing: .captureForPassthrough, help: "scan | list, and their options") var arguments: [String] = []

  func run() throws { try PluginHelper.exec("patchbay-flic", package: "patchbay-plugin-flic", arguments) }
}

struct FlicBLEHelper: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "flic-ble",
    abstract: "Pair Flic 2 buttons through BlueZ (runs patchbay-flic-ble: scan, pair INSTANCE NAME --address A, "
      + "unpair INSTANCE NAME, list INSTANCE; --config FILE).")
  @Argument(parsing: .captureForPassthrough, help: "scan | pair | unpair | list, INSTANCE, and their options")
  var arguments: [String] = []

  func run() throws {
    try PluginHelper.exec(
      "patchbay-flic-ble", package: "patchbay-plugin-flic-ble",
      try PluginHelper.withStateDirectory(arguments, plugin: "flic-ble"))
  }
}

struct HueHelper: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "hue", abstract: "Pair with a Hue bridge (runs patchbay-hue: pair BRIDGE).")
  @Argument(parsing: .captureForPassthrough, help: "pair BRIDGE, and its options") var arguments: [String] = []

  func run() throws { try PluginHelper.exec("patchbay-hue", package: "patchbay-plugin-hue", arguments) }
}

struct HomeKitHelper: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "homekit",
    abstract: "A HomeKit bridge's setup code and QR code, pairings and reset (runs patchbay-homekit: "
      + "setup INSTANCE, pairings INSTANCE [--remove ID], reset INSTANCE [--yes]; --config FILE).")
  @Argument(parsing: .captureForPassthrough, help: "setup | pairings | reset, INSTANCE, and their options")
  var arguments: [String] = []

  func run() throws {
    try PluginHelper.exec(
      "patchbay-homekit", package: "patchbay-plugin-homekit",
      try PluginHelper.withStateDirectory(arguments, plugin: "homekit"))
  }
}

struct HomeKitControllerHelper: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "homekit-controller",
    abstract: "Find HomeKit accessories and pair instances with them (runs patchbay-homekit-controller: "
      + "discover, pair INSTANCE --device ID --code XXX-XX-XXX, unpair INSTANCE [--forget]; --config FILE).")
  @Argument(parsing: .captureForPassthrough, help: "discover | pair | unpair, INSTANCE, and their options")
  var arguments: [String] = []

  func run() throws {
    try PluginHelper.exec(
      "patchbay-homekit-controller", package: "patchbay-plugin-homekit-controller",
      try PluginHelper.withStateDirectory(arguments, plugin: "homekit-controller"))
  }
}

extension PluginHelper {
  /// A helper's arguments with the instance's state directory from the config (`--config`,
  /// else the default) when a subcommand names an instance of `plugin`.
  static func withStateDirectory(_ arguments: [String], plugin: String) throws -> [String] {
    var passed = arguments
    var configFile = Defaults.mainConfigFile
    if let flag = passed.firstIndex(where: { $0 == "--config" || $0 == "-c" }), flag + 1 < passed.count {
      configFile = passed[flag + 1]
      passed.removeSubrange(flag...(flag + 1))
    }
    // The subcommand and the instance: the first two words that are not options or their values.
    var positional: [String] = []
    var index = 0
    while index < passed.count {
      if passed[index].hasPrefix("-") {
        index += passed[index].contains("=") || ["--yes", "--forget"].contains(passed[index]) ? 1 : 2
      } else {
        positional.append(passed[index])
        index += 1
      }
    }
    guard positional.count >= 2, !passed.contains("--state-directory") else { return passed }
    let config: HubConfig
    switch ConfigLoader.isolated.load(mainFile: configFile) {
    case .success(let loaded): config = loaded
    case .failure(let errors):
      printError(errors.description)
      throw ExitCode(1)
    }
    let instances = config.instances.filter { $0.plugin == plugin }.map(\.name)
    guard instances.contains(positional[1]) else {
      printError(
        "\(configFile): no \(plugin) instance '\(positional[1])' (\(plugin) instances: "
          + (instances.isEmpty ? "none" : instances.joined(separator: ", ")) + ")")
      throw ExitCode(1)
    }
    return passed + ["--state-directory", config.hub.stateDirectory]
  }
}

enum PluginHelper {
  /// Replaces this process with the helper found beside `patchbay` (a `swift build` tree, or
  /// /usr/bin for `patchbay-sim`) or where the plugin's package installs it.
  static func exec(_ name: String, package: String, _ arguments: [String]) throws {
    let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let candidates = [(own as NSString).deletingLastPathComponent + "/" + name, "/usr/lib/patchbay/" + name]
    guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
      printError(
        "\(name) is not installed (looked in \(candidates.joined(separator: ", "))): "
          + "install the package \(package)")
      throw ExitCode(1)
    }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    execv(path, argv)
    printError("cannot run \(path): \(String(cString: strerror(errno)))")
    throw ExitCode(1)
  }
}
