import Foundation
import PatchbayWire

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

  package static var executableDirectory: String {
    let resolved =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return (resolved as NSString).deletingLastPathComponent
  }

  /// The first library for `plugin` on the search path. The path keeps the file name it was
  /// found under (symbolic links are not followed): that name is what the plugin host checks
  /// against the descriptor.
  public func library(for plugin: String) -> String? {
    for directory in searchPath {
      for name in PluginFileName.candidates(for: plugin) {
        let path = (directory as NSString).appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: path) { return Self.tidy(path) }
      }
    }
    return nil
  }

  /// Every installed plugin: the name its file gives and the library path; first occurrence
  /// on the path wins. Other `lib*.so` files are ordinary libraries, not plugins.
  public func installedPlugins() -> [(name: String, path: String)] {
    var seen: Set<String> = []
    var result: [(String, String)] = []
    for directory in searchPath {
      let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
      for file in files {
        guard let name = PluginFileName.pluginName(ofFile: file) else { continue }
        if file.hasPrefix("lib"), !file.hasPrefix(PluginFileName.packagedPrefix) { continue }
        guard seen.insert(name).inserted else { continue }
        result.append((name, Self.tidy((directory as NSString).appendingPathComponent(file))))
      }
    }
    return result
  }

  /// `..` and `.` removed as text, without resolving symbolic links.
  package static func tidy(_ path: String) -> String { URL(fileURLWithPath: path).standardized.path }
}
