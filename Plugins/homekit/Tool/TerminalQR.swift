import ArgumentParser
import CQREncode

/// A QR code as text: two module rows per line with half blocks, light modules drawn (as
/// `qrencode -t UTF8` does), with a quiet zone, so it scans from a dark terminal.
enum TerminalQR {
  static func render(_ text: String) throws -> String {
    guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
      throw ValidationError("libqrencode could not encode \(text)")
    }
    defer { QRcode_free(code) }
    let width = Int(code.pointee.width)
    let quiet = 2
    let size = width + 2 * quiet
    func dark(_ x: Int, _ y: Int) -> Bool {
      let (cx, cy) = (x - quiet, y - quiet)
      guard cx >= 0, cy >= 0, cx < width, cy < width else { return false }
      return code.pointee.data[cy * width + cx] & 1 == 1
    }
    var lines: [String] = []
    for y in stride(from: 0, to: size, by: 2) {
      var line = ""
      for x in 0..<size {
        let top = !dark(x, y)
        let bottom = y + 1 < size ? !dark(x, y + 1) : false
        line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
      }
      lines.append(line)
    }
    return lines.joined(separator: "\n")
  }
}
