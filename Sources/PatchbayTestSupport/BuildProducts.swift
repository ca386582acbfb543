import Foundation

/// Where `swift build` put the executables and plugin libraries of this package.
public enum BuildProducts {
  /// The directory holding the test bundle, which is the build products directory.
  public static let directory: URL = {
    if let override = ProcessInfo.processInfo.environment["PATCHBAY_BUILD_DIR"] {
      return URL(fileURLWithPath: override)
    }
    var url = Bundle.main.bundleURL
    // xctest bundles live in the products directory; walk up until an executable is found.
    for _ in 0..<4 {
      if FileManager.default.fileExists(atPath: url.appendingPathComponent("patchbay").path) { return url }
      url.deleteLastPathComponent()
    }
    return Bundle.main.bundleURL.deletingLastPathComponent()
  }()

  public static func executable(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// A Swift or C plugin built by SwiftPM: `libpatchbay-plugin-NAME.so`.
  public static func plugin(_ name: String) -> String {
    directory.appendingPathComponent("libpatchbay-plugin-\(name).so").path
  }
}
