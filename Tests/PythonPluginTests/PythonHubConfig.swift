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
  func writable(files: [String] = [], folders: [String] = []) throws -> String {
    for folder in folders { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
    for file in files where !FileManager.default.fileExists(atPath: file) {
      FileManager.default.createFile(atPath: file, contents: nil)
    }
    return "sandbox.write = [" + (files + folders).map { "\"\($0)\"" }.joined(separator: ", ") + "]"
  }

  /// Writes a Python module into the temp dir and returns its path.
  @discardableResult
  func writeModule(_ name: String, _ source: String) throws -> String {
    try directory.write("modules/\(name).py", source)
  }

  /// Config for the example C counter (`counter`: input `increment`, `set`; output `count`).
  static let counter = """
    [instances.counter]
    plugin = "example-c"
    """

  /// Config for a recorder: an example-swift instance `probe` with one input per "NAME:TYPE:KIND",
  /// each value it gets appended to probe.jsonl (read with `lines("probe.jsonl")`).
  func probe(_ ports: String...) -> String {
    let entries = ports.map { port in
      let part = port.split(separator: ":")
      return #"{ name = "\#(part[0])", type = "\#(part[1])", kind = "\#(part[2])" }"#
    }
    return """
      [instances.probe]
      plugin = "example-swift"
      record = "\(path)/probe.jsonl"
      ports = [\(entries.joined(separator: ", "))]
      """
  }

  func waitForLogLine(containing text: String) throws {
    try process?.waitForLine(containing: text, within: 60)
  }
}
