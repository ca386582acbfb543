import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The line-oriented record a conformance run writes for `patchbay plugin test`: one event per
/// line, fields separated by tabs, on the descriptor the checker passed. Each line is written
/// at once, so whatever the plugin does next (crash, hang) the record up to it is kept.
final class ReportChannel: Sendable {
  /// The checker's pipe, where the hub's socket would be.
  static let descriptor: Int32 = 3
  private let writing = Mutex(())

  func write(_ fields: String...) {
    let line = fields.map(Self.field).joined(separator: "\t") + "\n"
    writing.withLock { _ in
      var bytes = Array(line.utf8)
      var offset = 0
      while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes {
          Glibc.write(Self.descriptor, $0.baseAddress! + offset, $0.count - offset)
        }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
      }
      bytes.removeAll()
    }
  }

  /// A field never contains the separators; messages stay on one line.
  private static func field(_ text: String) -> String {
    String(text.prefix(2000).map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
  }
}
