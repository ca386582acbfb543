/// The hub's version, shown by `patchbay --version` and in `status`.
public enum HubVersion {
  public static let current = "0.1.0"
}
