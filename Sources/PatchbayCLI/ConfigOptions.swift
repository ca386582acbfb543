import ArgumentParser
import Foundation
import PatchbayHub

/// `--config` and `--socket`, shared by every command that reads the config or talks to the hub.
struct ConfigOptions: ParsableArguments {
  @Option(name: .shortAndLong, help: "Main config file; conf.d/*.toml next to it is read too.")
  var config: String = Defaults.mainConfigFile

  @Option(help: "Control socket of the running hub (default: from the config).")
  var socket: String?

  func load() throws -> HubConfig {
    switch ConfigLoader.isolated.load(mainFile: config) {
    case .success(let loaded): return loaded
    case .failure(let errors):
      printError(errors.description)
      throw ExitCode(1)
    }
  }

  /// The socket to talk to: the flag, else the config's, else the default.
  func controlSocket() -> String {
    if let socket { return socket }
    if case .success(let loaded) = ConfigLoader.isolated.load(mainFile: config) { return loaded.hub.controlSocket }
    return Defaults.controlSocket
  }
}

func printError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}
