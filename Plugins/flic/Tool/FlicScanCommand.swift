import ArgumentParser
import FlicProtocol
import Foundation

/// `patchbay flic scan`: runs flicd's scan wizard and prints the new button with a config snippet.
struct FlicScanCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scan",
    abstract: "Pair a new Flic button: hold it for 7 seconds until it blinks, then run this.",
    discussion: "flicd needs to reach Flic's servers once to verify a new button; afterwards it works offline.")

  @OptionGroup var flicd: FlicdOptions
  @Option(help: "Give up after this many seconds.") var timeout: Double = 60
  @Option(help: "The flic instance name to use in the printed config snippet.") var instance = "buttons"

  func run() throws {
    let link = try flicd.connect()
    defer { link.close() }
    let deadline = Date().addingTimeInterval(timeout)
    let wizard: UInt32 = 1
    say("Searching for a new Flic button at flicd \(link.endpoint): hold the button for 7 seconds...")
    link.send(.createScanWizard(scanWizardID: wizard))
    var found: (address: BluetoothAddress, name: String)?
    // flicd reports a private button once and keeps waiting for it to turn public; when it
    // then times out, the advice is about that button, not about finding one.
    var sawPrivateButton = false
    do {
      while true {
        switch try link.next(before: deadline) {
        case .scanWizardFoundPrivateButton(wizard):
          sawPrivateButton = true
          say("Found a private button: hold it for 7 seconds to make it public.")
        case .scanWizardFoundPublicButton(wizard, let address, let name):
          found = (address, name)
          say("Found \(name) (\(address)), connecting...")
        case .scanWizardButtonConnected(wizard):
          say("Connected, verifying...")
        case .scanWizardCompleted(wizard, let result):
          guard result == .success, let found else {
            printError("pairing failed: \(Self.explain(result, sawPrivateButton: sawPrivateButton))")
            throw ExitCode(1)
          }
          say("Paired: \(found.address) \(found.name)")
          say("")
          say("Add it to your config:")
          say(Self.snippet(instance: instance, address: found.address, name: found.name))
          return
        default:
          continue
        }
      }
    } catch let failure as FlicdLink.Failure {
      link.send(.cancelScanWizard(scanWizardID: wizard))
      if Date() >= deadline, sawPrivateButton {
        printError("no button paired within \(Int(timeout)) s: \(Self.privateButtonAdvice)")
      } else if Date() >= deadline {
        printError("no button paired within \(Int(timeout)) s; hold the button for 7 seconds and try again")
      } else {
        printError(failure.description)
      }
      throw ExitCode(1)
    }
  }

  /// A TOML section for the flic instance, with a port-safe name derived from the button's.
  static func snippet(instance: String, address: BluetoothAddress, name: String) -> String {
    var portName = String(name.lowercased().map { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII ? $0 : "_" })
    if portName.isEmpty { portName = "button" }
    return """
      [[instances.\(instance).buttons]]
      name = "\(portName)"
      address = "\(address)"
      """
  }

  static let privateButtonAdvice =
    "a button was found, but it is private; hold it for 7 seconds until it blinks to make it public, then run this again"

  static func explain(_ result: ScanWizardResult, sawPrivateButton: Bool = false) -> String {
    switch result {
    case .success: "success"
    case .cancelledByUser: "cancelled"
    case .failedTimeout where sawPrivateButton: "timed out: \(privateButtonAdvice)"
    case .failedTimeout: "no button found in time; hold the button for 7 seconds until it blinks"
    case .buttonIsPrivate: "the button is private; hold it for 7 seconds to make it public"
    case .bluetoothUnavailable: "flicd's Bluetooth controller is unavailable"
    case .internetBackendError: "flicd could not reach Flic's servers to verify the button"
    case .invalidData: "the button sent invalid data"
    case .buttonBelongsToOtherPartner: "the button belongs to another partner's app"
    case .buttonAlreadyConnectedToOtherDevice: "the button is connected to another device; remove it there first"
    }
  }
}
