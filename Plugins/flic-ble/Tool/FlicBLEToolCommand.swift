import ArgumentParser
import FlicBLEBlueZ
import FlicBLEProtocol
import Foundation
import PatchbayValues

/// `patchbay-flic-ble` (run as `patchbay flic-ble`, which finds the hub's state directory in
/// the config): find Flic 2 buttons through BlueZ, pair one with an instance, unpair, list.
/// It links the protocol and the BlueZ transport, not the plugin.
@main
struct FlicBLEToolCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay flic-ble", abstract: "Pair Flic 2 buttons through BlueZ (no flicd).",
    subcommands: [FlicBLEScanCommand.self, FlicBLEPairCommand.self, FlicBLEUnpairCommand.self, FlicBLEListCommand.self])
}

/// A refusal a person can act on: printed without usage lines, exit status 1.
struct ToolFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

func fail(_ text: String) -> ExitCode {
  FileHandle.standardError.write(Data((text + "\n").utf8))
  return ExitCode(1)
}

/// Prints a line unbuffered, so progress shows at once also through a pipe.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Which instance, and where the hub keeps its state.
struct InstanceOptions: ParsableArguments {
  @Argument(help: "The flic-ble instance (its name in the config).") var instance: String
  @Option(help: "The hub's state directory (patchbay passes the config's hub.state_directory).")
  var stateDirectory: String = "/var/lib/patchbay"

  var directory: String { StateLayout.instanceDirectory(instance, in: stateDirectory) }

  func prepareDirectory() throws {
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let owner = (try FileManager.default.attributesOfItem(atPath: directory)[.ownerAccountID] as? NSNumber)?.uint32Value
    if let owner, owner != geteuid() {
      throw fail(
        "\(directory) belongs to uid \(owner): run this as the hub's user (sudo -u patchbay patchbay flic-ble ...)")
    }
  }
}

struct FlicBLEScanCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scan", abstract: "List the Flic 2 buttons BlueZ finds (press one, or hold it 7 s to pair).")
  @Option(help: "Seconds to look.") var seconds: Double = 10

  func run() throws {
    let session = try BlueZToolSession.open()
    defer { session.close() }
    say("scanning for \(Int(seconds)) s on \(session.adapterName): press a button, or hold it 7 s to pair it")
    let found = try session.scan(seconds: seconds)
    if found.isEmpty { say("no Flic 2 button found") }
    for button in found { say(button) }
  }
}

struct FlicBLEPairCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pair", abstract: "Pair a button (held 7 s, in pairing mode) with an instance's button NAME.")
  @OptionGroup var options: InstanceOptions
  @Argument(help: "The button's name in the instance's buttons table.") var name: String
  @Option(help: "The button's Bluetooth address (patchbay flic-ble scan shows it).") var address: String
  @Option(help: "Seconds to wait for the button.") var seconds: Double = 30
  #if DEBUG
    @Option(help: "Tests only (debug builds): an extra trusted factory key, 64 hex digits.")
    var testFactoryKey: String?
  #endif

  func run() throws {
    guard let parsed = BluetoothAddressText(address) else {
      throw fail("--address '\(address)' must be a Bluetooth address like 80:e4:da:71:b6:8e")
    }
    var keys = TrustedFactoryKeys.shortcutLabs
    #if DEBUG
      if let testFactoryKey {
        guard let key = PairingHex.bytes(testFactoryKey), key.count == 32 else {
          throw fail("--test-factory-key must be 64 hex digits")
        }
        keys = TrustedFactoryKeys(testOnlyKeys: keys.keys + [key])
      }
    #endif
    try options.prepareDirectory()
    let file = PairingFile(stateDirectory: options.directory, button: name)
    let session = try BlueZToolSession.open()
    defer { session.close() }
    say("looking for \(parsed) on \(session.adapterName) (hold the button 7 s if you have not)")
    let stored = try session.pair(address: parsed, trustedKeys: keys, seconds: seconds)
    do { try file.save(stored) } catch { throw fail("\(error)") }
    say(
      "paired \(name) (\(parsed), serial \(stored.serialNumber.isEmpty ? "?" : stored.serialNumber)); "
        + "the instance \(options.instance) picks it up within seconds")
  }
}

struct FlicBLEUnpairCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "unpair", abstract: "Forget an instance's pairing with button NAME.")
  @OptionGroup var options: InstanceOptions
  @Argument(help: "The button's name.") var name: String

  func run() throws {
    let file = PairingFile(stateDirectory: options.directory, button: name)
    guard file.remove() else { throw fail("\(options.instance) has no pairing for \(name) (\(file.path))") }
    say("forgot \(name); restart the instance (patchbay reload) so it drops a live link")
  }
}

struct FlicBLEListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "list", abstract: "List an instance's paired buttons.")
  @OptionGroup var options: InstanceOptions

  func run() throws {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: options.directory)) ?? [])
      .filter { $0.hasSuffix(".flic2") }.sorted()
    if names.isEmpty { say("\(options.instance) has no paired buttons") }
    for entry in names {
      let name = String(entry.dropLast(".flic2".count))
      switch Result(catching: { try PairingFile(stateDirectory: options.directory, button: name).load() }) {
      case .success(let button):
        say(
          "\(name)  \(BluetoothAddressText(littleEndian: button.address))  serial \(button.serialNumber)  "
            + "events \(button.cursor.eventCount)")
      case .failure(let error): say("\(name)  \(error)")
      }
    }
  }
}

enum PairingHex {
  static func bytes(_ text: String) -> [UInt8]? {
    guard text.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
      out.append(byte)
      index = next
    }
    return out
  }
}
