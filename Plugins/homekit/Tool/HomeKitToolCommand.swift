import ArgumentParser
import Foundation
import HAP
import HomeKitProtocol
import PatchbayValues

/// `patchbay-homekit` (run as `patchbay homekit`, which finds the hub's state directory in the
/// config): the setup code and QR code, the pairings, a deliberate reset, on one homekit
/// instance's state directory. It ships with the plugin, so the hub's binary links no libqrencode.
@main
struct HomeKitToolCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay homekit", abstract: "Set up and manage a HomeKit bridge instance.",
    subcommands: [SetupCommand.self, PairingsCommand.self, ResetCommand.self])
}

/// Which instance, and where the hub keeps its state.
struct InstanceOptions: ParsableArguments {
  @Argument(help: "The homekit instance (its name in the config).") var instance: String
  @Option(help: "The hub's state directory (patchbay passes the config's hub.state_directory).")
  var stateDirectory: String = "/var/lib/patchbay"

  var directory: String { StateLayout.instanceDirectory(instance, in: stateDirectory) }
  var store: BridgeIdentityStore { BridgeIdentityStore(directory: directory) }
}

struct SetupCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "setup", abstract: "Print the setup code and its QR code (scan it in the Home app).")
  @OptionGroup var options: InstanceOptions

  func run() throws {
    guard let identity = try withStoreErrors({ try options.store.loadIdentity() }) else {
      throw CommandFailure(
        "the bridge '\(options.instance)' has no identity yet (no \(options.store.identityPath)): "
          + "start the hub with it once (patchbay status shows it running), then run this again")
    }
    let pairings = try withStoreErrors { try options.store.loadPairings() }
    guard let code = HAPSetupCode(identity.setupCode) else { throw CommandFailure("no valid setup code stored") }
    let uri = hapSetupURI(code: code, setupID: identity.setupID, category: .bridge)
    print(try TerminalQR.render(uri))
    print("HomeKit bridge '\(options.instance)' (device id \(identity.deviceID))")
    print("Setup code: \(code)")
    print("Setup URI:  \(uri)")
    if pairings.isPaired {
      print(
        "Already paired with \(pairings.pairings.count) controller(s): Home pairs again only after 'patchbay homekit reset \(options.instance)'."
      )
    } else {
      print("In the Home app: Add Accessory, then scan the code (or enter the setup code).")
    }
  }
}

struct PairingsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pairings", abstract: "List the controllers paired with the bridge, or remove one.")
  @OptionGroup var options: InstanceOptions
  @Option(help: "Remove the pairing with this controller id (the hub must be stopped).") var remove: String?

  func run() throws {
    var state = try withStoreErrors { try options.store.loadPairings() }
    if let remove {
      let lock = try HubLock.take(stateDirectory: options.stateDirectory, changing: options.directory)
      defer { lock.release() }
      guard state.pairings.contains(where: { $0.identifier == remove }) else {
        throw CommandFailure(
          "no pairing '\(remove)' (paired: \(state.pairings.map(\.identifier).joined(separator: ", ")))")
      }
      state.pairings.removeAll { $0.identifier == remove }
      // The spec: removing the last admin unpairs the accessory.
      if !state.pairings.contains(where: \.isAdmin) { state.pairings = [] }
      try options.store.save(state)
      print(state.isPaired ? "removed \(remove)" : "removed \(remove): no admin left, so the bridge is unpaired")
      return
    }
    if !state.isPaired { print("not paired") }
    for pairing in state.pairings {
      let key = pairing.publicKey.prefix(8).map { String(format: "%02x", $0) }.joined()
      print("\(pairing.identifier)  \(pairing.isAdmin ? "admin  " : "regular")  key \(key)…")
    }
    if state.failedSetupAttempts > 0 { print("failed pairing attempts: \(state.failedSetupAttempts)") }
  }
}

struct ResetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset",
    abstract: "Forget every pairing and take a new device id: Home sees a new bridge (the hub must be stopped).")
  @OptionGroup var options: InstanceOptions
  @Flag(help: "Do not ask.") var yes = false

  func run() throws {
    let lock = try HubLock.take(stateDirectory: options.stateDirectory, changing: options.directory)
    defer { lock.release() }
    if !yes {
      print(
        "This forgets every pairing of HomeKit bridge '\(options.instance)': every controller must pair again, "
          + "and Home sees a new bridge (its rooms, scenes and automations for it are gone). Type 'yes' to go on: ",
        terminator: "")
      guard readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
        print("nothing changed")
        throw ExitCode(1)
      }
    }
    let identity = try options.store.startOver()
    print("reset: no pairings, new device id \(identity.deviceID); setup code \(identity.setupCode)")
  }
}

/// A damaged file of the store: the message names it; exit status 1.
func withStoreErrors<T>(_ body: () throws -> T) throws -> T {
  do {
    return try body()
  } catch let error as BridgeIdentityStore.Corrupt {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    throw ExitCode(1)
  }
}
