import Foundation

/// Finds plugin libraries and the plugin-host executable, both in a `swift build` tree (next
/// to the `patchbay` executable) and in the installed layout (/usr/lib/patchbay).
public struct PluginLocator: Sendable {
  public var searchPath: [String]
  public var hostExecutable: String

  public static let installedPluginDirectory = "/usr/lib/patchbay/plugins"
  public static let installedHost = "/usr/lib/patchbay/patchbay-plugin-host"

  /// `configured` comes from `[hub] plugin_path`; PATCHBAY_PLUGIN_PATH (colon-separated) and
  /// the built-in places follow.
  public init(configured: [String] = []) {
    let executableDirectory = Self.executableDirectory
    var path = configured
    if let extra = ProcessInfo.processInfo.environment["PATCHBAY_PLUGIN_PATH"] {
      path += extra.split(separator: ":").map(String.init)
    }
    // The executable's own directory holds plugins only in a `swift build` tree, where the
    // plugin host sits beside it; installed, it is /usr/bin (whose ld.so is no plugin).
    if FileManager.default.isExecutableFile(atPath: executableDirectory + "/patchbay-plugin-host") {
      path.append(executableDirectory)
    }
    path += [executableDirectory + "/../lib/patchbay/plugins", Self.installedPluginDirectory]
    searchPath = path
    let candidates = [
      ProcessInfo.processInfo.environment["PATCHBAY_PLUGIN_HOST"], executableDirectory + "/patchbay-plugin-host",
      executableDirectory + "/../lib/patchbay/patchbay-plugin-host", Self.installedHost,
    ].compactMap { $0 }
    hostExecutable = candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? Self.installedHost
  }

  static var executableDirectory: String {
    let resolved =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return (resolved as NSString).deletingLastPathComponent
  }

  /// The library files a plugin name may have.
  static func fileNames(for plugin: String) -> [String] { ["libpatchbay-plugin-\(plugin).so", "\(plugin).so"] }

  /// The first library for `plugin` on the search path.
  public func library(for plugin: String) -> String? {
    for directory in searchPath {
      for name in Self.fileNames(for: plugin) {
        let path = (directory as NSString).appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: path) { return (path as NSString).standardizingPath }
      }
    }
    return nil
  }

  /// Every installed plugin: name and library path, first occurrence on the path wins.
  public func installedPlugins() -> [(name: String, path: String)] {
    var seen: Set<String> = []
    var result: [(String, String)] = []
    for directory in searchPath {
      let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
      for file in files where file.hasSuffix(".so") {
        var name = String(file.dropLast(3))
        if name.hasPrefix("libpatchbay-plugin-") {
          name = String(name.dropFirst("libpatchbay-plugin-".count))
        } else if name.hasPrefix("lib") {
          continue
        }
        guard seen.insert(name).inserted else { continue }
        result.append((name, ((directory as NSString).appendingPathComponent(file) as NSString).standardizingPath))
      }
    }
    return result
  }
}
