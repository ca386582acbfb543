import PatchbayValues

/// The hub's version, shown by `patchbay --version` and in `status`: patchbay's one version.
public enum HubVersion {
  public static let current = PatchbayVersion.current
}
