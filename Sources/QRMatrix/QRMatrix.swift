import CQREncode

/// A QR code's modules, encoded by libqrencode (error correction M; it chooses the segments'
/// modes, alphanumeric for a HomeKit payload): what the terminal (`patchbay homekit setup`) and
/// the dashboard draw the HomeKit setup code from.
public struct QRMatrix: Sendable, Equatable {
  /// Modules per side (without a quiet zone).
  public let width: Int
  private let dark: [Bool]

  /// Nil when libqrencode cannot encode the text (too long for a QR code).
  public init?(encoding text: String) {
    guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
    defer { QRcode_free(code) }
    width = Int(code.pointee.width)
    // libqrencode's byte per module: bit 0 is the colour, the others say what the module is for.
    dark = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
  }

  /// Whether the module at column `x`, row `y` is dark; outside the code (the quiet zone) it is light.
  public func isDark(_ x: Int, _ y: Int) -> Bool {
    guard x >= 0, y >= 0, x < width, y < width else { return false }
    return dark[y * width + x]
  }
}
