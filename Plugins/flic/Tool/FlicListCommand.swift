import ArgumentParser
import FlicProtocol
import Foundation

/// `patchbay flic list`: the buttons paired with flicd and what flicd knows about each.
struct FlicListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the buttons paired with flicd (color, serial, Flic version, firmware).")

  @OptionGroup var flicd: FlicdOptions
  @Option(help: "Give up after this many seconds.") var timeout: Double = 10

  func run() throws {
    let link = try flicd.connect()
    defer { link.close() }
    let deadline = Date().addingTimeInterval(timeout)
    do {
      link.send(.getInfo)
      let info = try link.await(before: deadline) { event -> DaemonInfo? in
        if case .getInfoResponse(let info) = event { info } else { nil }
      }
      guard !info.verifiedButtons.isEmpty else {
        print("No buttons are paired with flicd at \(link.endpoint); pair one with `patchbay flic scan`.")
        return
      }
      var rows = [["ADDRESS", "COLOR", "SERIAL", "FLIC", "FIRMWARE", "UUID"]]
      for address in info.verifiedButtons {
        link.send(.getButtonInfo(address: address))
        let details = try link.await(before: deadline) { event -> ButtonInfo? in
          if case .getButtonInfoResponse(let details) = event, details.address == address { details } else { nil }
        }
        rows.append([
          address.description, details.color.isEmpty ? "-" : details.color,
          details.serialNumber.isEmpty ? "-" : details.serialNumber, "\(details.flicVersion)",
          "\(details.firmwareVersion)", details.uuidText,
        ])
      }
      let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
      for row in rows {
        print(
          row.enumerated().map { column, text in
            column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
          }.joined(separator: "  "))
      }
    } catch let failure as FlicdLink.Failure {
      printError(failure.description)
      throw ExitCode(1)
    }
  }
}
