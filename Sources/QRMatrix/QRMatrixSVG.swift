import Foundation

extension QRMatrix {
  /// The code as an SVG image: one unit per module, a light quiet zone of `quietZone` modules,
  /// one `rect` per dark module (so a test can read the modules back). Scales to any size.
  public func svg(quietZone: Int = 4, title: String? = nil) -> String {
    let size = width + 2 * quietZone
    var out =
      #"<svg xmlns="http://www.w3.org/2000/svg" class="qr" viewBox="0 0 \#(size) \#(size)" "#
      + #"shape-rendering="crispEdges" role="img">"#
    if let title { out += "<title>\(Self.escaped(title))</title>" }
    out +=
      ##"<rect class="qr-light" width="\##(size)" height="\##(size)" fill="#fff"/><g class="qr-modules" fill="#000">"##
    for y in 0..<width {
      for x in 0..<width where isDark(x, y) {
        out += #"<rect x="\#(x + quietZone)" y="\#(y + quietZone)" width="1" height="1"/>"#
      }
    }
    return out + "</g></svg>"
  }

  private static func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }
}
