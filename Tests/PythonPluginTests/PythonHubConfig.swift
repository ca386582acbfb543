import Foundation
import PatchbayTestSupport

/// What the python plugin's tests put into a hub: the built plugins, Python modules, and the
/// instances they route to.
extension HubUnderTest {
  /// A hub with the python, example-c and example-swift plugins.
  static func python() throws -> HubUnderTest {
    try HubUnderTest("patchbay-python", plugins: ["python", "example-c", "example-swift"])
  }

  /// The instance's `sandbox.write` line for files (created empty) and folders (created) its
  /// module writes: the sandbox grants only what exists (docs/configuration.md, "Sandbox").
  /// Follows the instance's table; by hand, since the builder would quote the dotted key.
  func writable(files: [String] = [], folders: [String] = []) throws -> HubTOML {
    for folder in folders { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
    for file in files where !FileManager.default.fileExists(atPath: file) {
      FileManager.default.createFile(atPath: file, contents: nil)
    }
    return HubTOML().raw("sandbox.write = " + HubTOML.Value.array((files + folders).map { .string($0) }).toml)
  }

  /// Writes a Python module into the temp dir and returns its path.
  @discardableResult
  func writeModule(_ name: String, _ source: String) throws -> String {
    try directory.write("modules/\(name).py", source)
  }

  /// Config for the example C counter (`counter`: input `increment`, `set`; output `count`).
  static let counter = HubTOML().instance("counter", plugin: "example-c")

  /// Config for a recorder: an example-swift instance `probe` with `ports`, each value it gets
  /// appended to probe.jsonl (read with `lines("probe.jsonl")`).
  func probe(_ ports: HubTOML.Port...) -> HubTOML { HubTOML().probe(record: probe.path, ports: ports) }

  func waitForLogLine(containing text: String) throws {
    try process?.waitForLine(containing: text, within: 60)
  }
}
