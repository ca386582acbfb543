import Foundation
import PatchbayHub
import QRMatrix

/// `GET /api/homekit`: per `homekit` instance, what its panel on the dashboard shows, from the
/// instance's own outputs (`discovery`, `setup_payload`, `pairings`; docs/plugins/homekit.md):
/// the setup QR code (drawn here, as SVG, through libqrencode) and the setup code while unpaired,
/// and the paired controllers.
struct HomeKitPanel: Encodable {
  struct Pairing: Codable, Equatable {
    var id: String
    var admin: Bool
  }

  var instance: String
  var state: String
  var discovery: String?
  /// `X-HM://...`, absent once paired.
  var setupPayload: String?
  /// The eight digits the payload carries, as Home asks for them: `XXX-XX-XXX`.
  var setupCode: String?
  /// The QR code of `setupPayload`.
  var qrSVG: String?
  var pairings: [Pairing]

  static let plugin = "homekit"

  /// `values`: the hub's retained values by address, as the `values` request gives them (JSON).
  init(_ status: InstanceStatus, values: [String: String]) {
    func text(_ port: String) -> String? {
      guard let json = values["\(status.name).\(port)"],
        let value = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String,
        !value.isEmpty
      else { return nil }
      return value
    }
    instance = status.name
    state = status.phase.rawValue
    discovery = status.peer ?? text("discovery")
    let payload = text("setup_payload")
    let code = payload.flatMap(Self.setupCode(inPayload:))
    setupPayload = payload
    setupCode = code
    qrSVG = payload.flatMap { QRMatrix(encoding: $0)?.svg(title: "HomeKit setup code \(code ?? "")") }
    pairings = text("pairings").flatMap { try? JSONDecoder().decode([Pairing].self, from: Data($0.utf8)) } ?? []
  }

  /// The setup code in an `X-HM://` payload: 9 base-36 characters of a 45-bit number whose low
  /// 27 bits are the code (then the 4 characters of the setup id).
  static func setupCode(inPayload payload: String) -> String? {
    guard payload.hasPrefix("X-HM://") else { return nil }
    let digits = payload.dropFirst("X-HM://".count).prefix(9)
    guard digits.count == 9, let number = UInt64(digits, radix: 36) else { return nil }
    let code = String(format: "%08llu", number & (1 << 27 - 1))
    guard code.count == 8 else { return nil }
    let characters = Array(code)
    return String(characters[0..<3]) + "-" + String(characters[3..<5]) + "-" + String(characters[5..<8])
  }
}
