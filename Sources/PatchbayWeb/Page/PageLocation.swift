import Foundation

/// Where the dashboard's files are: `--page-directory` when given; else beside an installed binary
/// (`/usr/bin/patchbay-web` -> `/usr/share/patchbay/web`); else in the source tree this binary was
/// built from (`swift run patchbay-web`, the tests), so a build needs no install step.
enum PageLocation {
  static let installedSuffix = "share/patchbay/web"

  /// This file's folder at build time: `Sources/PatchbayWeb/Page`, whose `static` holds the files.
  static let sourceDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("static").path

  /// The candidates in order, for the first that has every file and for the error message.
  static func candidates(explicit: String?) -> [String] {
    if let explicit { return [explicit] }
    var found: [String] = []
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      // PREFIX/bin/patchbay-web -> PREFIX/share/patchbay/web
      let prefix = URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
      found.append(prefix.appendingPathComponent(installedSuffix).standardizedFileURL.path)
    }
    found.append(sourceDirectory)
    return found
  }

  static func locate(explicit: String?) -> String? {
    candidates(explicit: explicit).first { directory in
      PageFiles.names.allSatisfy { FileManager.default.isReadableFile(atPath: directory + "/" + $0) }
    }
  }
}
