/// Config sections for the bench-probe plugin (Sources/Benchmarks/Probes/probe-plugin.c).
enum ProbeConfig {
  enum Role: String { case source, sink }
  enum Mode: String { case pingpong, flood }

  /// An instance of the probe; `extra` adds hub keys (supervision) or `start_file`.
  static func instance(
    _ name: String, _ role: Role, kind: String = "event", mode: Mode = .pingpong, count: Int = 0, record: String = "",
    extra: String = ""
  ) -> String {
    """
    [instances.\(name)]
    plugin = "bench-probe"
    role = "\(role.rawValue)"
    kind = "\(kind)"
    mode = "\(mode.rawValue)"
    count = \(count)
    record = "\(record)"
    \(extra)

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
