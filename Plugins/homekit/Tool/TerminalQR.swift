import ArgumentParser
import PatchbayValues
import QRMatrix

/// A QR code as text: two module rows per line with half blocks, light modules drawn (as
/// `qrencode -t UTF8` does), with a quiet zone, so it scans from a dark terminal.
enum TerminalQR {
  static func render(_ text: String) throws -> String {
    guard let code = QRMatrix(encoding: text) else {
      throw CommandFailure("libqrencode could not encode \(text)")
    }
    let quiet = 2
    let size = code.width + 2 * quiet
    func dark(_ x: Int, _ y: Int) -> Bool { code.isDark(x - quiet, y - quiet) }
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
