import Foundation
import PatchbayValues

extension Hub {
  /// Applies a new config by starting, stopping or restarting only the instances that changed,
  /// and rebuilding the routes. An invalid config is refused with `check`'s messages and the
  /// running hub is left exactly as it was.
  public func reload(_ newConfig: HubConfig) throws(ConfigErrors) -> ReloadSummary {
    let problems = ConfigChecker(config: newConfig).check(newConfig)
    guard problems.isEmpty else { throw ConfigErrors(problems) }
    return applyReload(newConfig)
  }
}

/// What a reload changed, for the log and the `reload` command's answer.
public struct ReloadSummary: Sendable, Codable, CustomStringConvertible {
  public var started: [String]
  public var stopped: [String]
  public var restarted: [String]
  public var unchanged: [String]

  public var description: String {
    func list(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }
    return
      "started \(list(started)); stopped \(list(stopped)); restarted \(list(restarted)); unchanged \(list(unchanged))"
  }
}
