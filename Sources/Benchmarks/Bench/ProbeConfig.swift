import Foundation

/// Config sections for the bench-probe plugin (Sources/Benchmarks/Probes/probe-plugin.c).
enum ProbeConfig {
  enum Role: String { case source, sink }
  enum Mode: String { case pingpong, flood, stamp }

  /// An instance of the probe; `extra` adds hub keys (supervision) or `start_file`. The probe
  /// writes its results next to `record` (a temporary file, renamed), so its sandbox grants
  /// that folder (`folder`, where there is no record); `sandboxed: false` runs it unconfined.
  static func instance(
    _ name: String, _ role: Role, kind: String = "event", mode: Mode = .pingpong, count: Int = 0, record: String = "",
    extra: String = "", folder: String? = nil, sandboxed: Bool = true
  ) -> String {
    let writable = folder ?? (record as NSString).deletingLastPathComponent
    let sandbox =
      sandboxed
      ? (writable.isEmpty ? "" : "write = [\"\(writable)\"]") : "enabled = false"
    return """
      [instances.\(name)]
      plugin = "bench-probe"
      role = "\(role.rawValue)"
      kind = "\(kind)"
      mode = "\(mode.rawValue)"
      count = \(count)
      results = "\(record)"
      \(extra)
      [instances.\(name).sandbox]
      \(sandbox)

      """
  }

  static func route(_ from: String, _ to: String, name: String? = nil) -> String {
    """
    [[routes]]
    \(name.map { "name = \"\($0)\"" } ?? "")
    from = "\(from)"
    to = ["\(to)"]

    """
  }
}
