import PatchbayCore

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
