/// patchbay's version: the hub's (`patchbay --version`, `status`), every bundled plugin's
/// descriptor, MQTT discovery's `sw_version`. The Debian changelog, the man pages and
/// Package.swift's `PATCHBAY_VERSION` for the bundled C plugins repeat it;
/// `VersionAgreementTests` fails when one of them differs.
public enum PatchbayVersion {
  public static let current = "0.1.0"
}
