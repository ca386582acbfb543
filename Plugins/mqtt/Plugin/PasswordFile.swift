import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The broker password: the first line of a file readable by the hub only. Its content is
/// never logged or published; errors name the file, not what is in it.
enum PasswordFile {
  static func read(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw PluginError(.unavailable, "password_file '\(path)' cannot be read")
    }
    let text = String(decoding: data, as: UTF8.self)
    let line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
    let password = line.hasSuffix("\r") ? String(line.dropLast()) : line
    guard !password.isEmpty else { throw PluginError(.unavailable, "password_file '\(path)' is empty") }
    return password
  }
}
