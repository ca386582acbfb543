import ArgumentParser
import Foundation
import HAP
import HAPDiscovery
import HomeKitControllerProtocol
import Logging
import NIOPosix
import PatchbayValues

/// `patchbay-homekit-controller` (run as `patchbay homekit-controller`, which finds the hub's
/// state directory in the config): find HomeKit accessories, pair an instance with one, unpair.
@main
struct HomeKitControllerToolCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay homekit-controller", abstract: "Find HomeKit accessories and pair instances with them.",
    subcommands: [DiscoverCommand.self, PairCommand.self, UnpairCommand.self])
}

/// Which instance, and where the hub keeps its state.
struct InstanceOptions: ParsableArguments {
  @Argument(help: "The homekit-controller instance (its name in the config).") var instance: String
  @Option(help: "The hub's state directory (patchbay passes the config's hub.state_directory).")
  var stateDirectory: String = "/var/lib/patchbay"

  var directory: String { StateLayout.instanceDirectory(instance, in: stateDirectory) }
  var store: ControllerPairingStore { ControllerPairingStore(directory: directory) }

  /// The instance's directory, made 0700 when missing; refused when another user owns it (the
  /// hub could not read files written 0600 by someone else).
  func prepareDirectory() throws {
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let owner = (try FileManager.default.attributesOfItem(atPath: directory)[.ownerAccountID] as? NSNumber)?.uint32Value
    if let owner, owner != geteuid() {
      throw CommandFailure(
        "\(directory) belongs to uid \(owner): run this as the hub's user "
          + "(sudo -u patchbay patchbay homekit-controller ...)")
    }
  }
}

/// Browses `_hap._tcp` for `seconds` and returns what answered, by name.
func browse(seconds: Double) async -> [HAPBrowser.Service] {
  var logger = Logger(label: "homekit-controller")
  logger.logLevel = .error
  let browser = HAPBrowser(logger: logger)
  browser.start()
  try? await Task.sleep(for: .seconds(seconds))
  let found = browser.services.values.sorted { $0.name < $1.name }
  browser.stop()
  return found
}

struct DiscoverCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "discover", abstract: "List the HomeKit accessories advertised on the network (mDNS).")
  @Option(help: "How long to listen, in seconds.") var seconds: Double = 5

  func run() async throws {
    let found = await browse(seconds: seconds)
    guard !found.isEmpty else {
      print(
        "no HomeKit accessory answered within \(Int(seconds)) s (is avahi-daemon running? "
          + "'systemctl status avahi-daemon'; an accessory on another network segment is not seen)")
      return
    }
    print(AccessoryTable.render(found))
  }
}

struct PairCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pair", abstract: "Pair an instance with an accessory by its setup code (as a HomeKit controller).")
  @OptionGroup var options: InstanceOptions
  @Option(help: "The accessory's device id (DEVICE ID in 'discover').") var device: String
  @Option(help: "The setup code on the accessory or its box, XXX-XX-XXX.") var code: String
  @Option(help: "HOST:PORT, instead of finding the accessory by mDNS.") var address: String?
  @Option(help: "How long to look for it by mDNS, in seconds.") var seconds: Double = 10

  func run() async throws {
    guard let setupCode = HAPSetupCode(code) else {
      throw ValidationError("'\(code)' is not a setup code: 8 digits written XXX-XX-XXX (as on the accessory)")
    }
    if let paired = try options.store.loadPairing() {
      throw CommandFailure(
        "'\(options.instance)' is paired already, with \(paired.name) (\(paired.accessoryID)): "
          + "'patchbay homekit-controller unpair \(options.instance)' first")
    }
    try options.prepareDirectory()
    let (name, host, port) = try await locate()
    let identity = HAPControllerIdentity.generate()
    let controller = HAPController(identity: identity, group: MultiThreadedEventLoopGroup.singleton)
    let accessory: HAPPairedAccessory
    do {
      accessory = try await controller.pairSetup(host: host, port: port, code: setupCode)
    } catch {
      throw CommandFailure("pairing with \(name) at \(host):\(port) failed: \(Self.explain(error))")
    }
    try options.store.save(.init(identity: identity, accessory: accessory, name: name, host: host, port: port))
    print("paired '\(options.instance)' with \(name) (\(accessory.pairingID)) at \(host):\(port)")
    do {
      let session = try await controller.connect(host: host, port: port, accessory: accessory)
      let database = try await session.accessories()
      await session.close()
      try options.store.saveAccessories(database)
      if address != nil, let named = ServiceLayout.serverName(in: database) {
        // Found by address: its own name, as mDNS would have given it.
        var pairing = try options.store.loadPairing()
        pairing?.name = named
        if let pairing { try options.store.save(pairing) }
      }
      let count = database["accessories"]?.arrayValue?.count ?? 0
      print("  verified: \(count) accessories there; start (or restart) the hub to use them")
    } catch {
      print("  paired, but reading its accessories failed (\(error)); the hub reads them when it connects")
    }
  }

  /// Where the accessory is: the address given, or its mDNS record (by device id).
  func locate() async throws -> (name: String, host: String, port: Int) {
    if let address {
      guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
        throw ValidationError("--address '\(address)' is not HOST:PORT")
      }
      return (device, String(address[..<colon]).trimmingCharacters(in: ["[", "]"]), port)
    }
    let found = await browse(seconds: seconds)
    guard let service = found.first(where: { $0.txt["id"]?.uppercased() == device.uppercased() }) else {
      let seen = found.isEmpty ? "none" : found.map { "\($0.name) (\($0.txt["id"] ?? "?"))" }.joined(separator: ", ")
      throw CommandFailure(
        "no accessory with device id \(device) answered within \(Int(seconds)) s (found: \(seen)); "
          + "'patchbay homekit-controller discover' lists them, --address HOST:PORT skips the search")
    }
    if service.txt["sf"] == "0" {
      throw CommandFailure(
        "\(service.name) is paired with another controller already (sf=0): remove it from that controller "
          + "(the Home app: Remove Accessory) or reset it, then pair again")
    }
    return (service.name, service.address, service.port)
  }

  static func explain(_ error: any Error) -> String {
    guard let error = error as? HAPClientError else { return "\(error)" }
    switch error {
    case .pairing(.authentication, _): return "the setup code is wrong"
    case .pairing(.unavailable, _), .pairing(.maxPeers, _):
      return "the accessory is paired with another controller already: remove it there (or reset it) first"
    default: return "\(error)"
    }
  }
}

struct UnpairCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "unpair", abstract: "Remove the instance's pairing on the accessory and forget it here.")
  @OptionGroup var options: InstanceOptions
  @Flag(help: "Only forget it here (the accessory is gone, or was reset).") var forget = false

  func run() async throws {
    guard let pairing = try options.store.loadPairing() else {
      throw CommandFailure("'\(options.instance)' is not paired")
    }
    if !forget {
      let identity = try pairing.identity()
      do {
        let session = try await HAPController(identity: identity, group: MultiThreadedEventLoopGroup.singleton).connect(
          host: pairing.host, port: pairing.port, accessory: try pairing.accessory())
        try await session.removePairing(identity.pairingID)
        await session.close()
      } catch {
        throw CommandFailure(
          "cannot remove the pairing on \(pairing.name) at \(pairing.host):\(pairing.port) (\(error)); "
            + "--forget forgets it here only")
      }
    }
    try options.store.remove()
    print(
      forget
        ? "forgot the pairing of '\(options.instance)' with \(pairing.name) (the accessory still lists it until reset)"
        : "unpaired '\(options.instance)' from \(pairing.name) (\(pairing.accessoryID))")
  }
}
