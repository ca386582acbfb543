import PatchbayHub
import PatchbayValues

/// The config `patchbay plugin test --config FILE` creates the instance with. FILE is TOML:
/// either one instance's keys at the top level, or a snippet with `[instances.NAME]` sections
/// (a plugin's example from /usr/share/patchbay/examples), whose section for this plugin is
/// used. The hub's own keys (`plugin`, `restart`, `hang_timeout_ms`, ...) never reach a plugin.
struct InstanceConfigFile: Sendable {
  var pluginConfig: JSONValue
  /// `hang_timeout_ms` of the section, in seconds, when it sets one.
  var hangTimeout: Double?

  struct Problem: Error, CustomStringConvertible {
    var description: String
  }

  static func read(_ file: String, plugin: String?) throws(Problem) -> InstanceConfigFile {
    if let crash = ParserIsolation.crash(mainFile: file) { throw Problem(description: crash.description) }
    let tree: JSONValue
    switch TOMLDocument.read(file) {
    case .success(let read): tree = read
    case .failure(let diagnostic): throw Problem(description: diagnostic.description)
    }
    var section = tree
    if case .object(let instances)? = tree["instances"] {
      let sections = instances.filter {
        if case .object = $0.1 { return true } else { return false }
      }
      let chosen =
        sections.count == 1
        ? sections.first : sections.first { if case .string(plugin ?? "")? = $0.1["plugin"] { true } else { false } }
      guard let chosen else {
        throw Problem(
          description:
            "\(file): \(sections.count) instance sections, none with plugin = \"\(plugin ?? "?")\"; keep one")
      }
      section = chosen.1
    }
    guard case .object(let members) = section else { throw Problem(description: "\(file): not a table") }
    var hangTimeout: Double?
    if let milliseconds = section["hang_timeout_ms"]?.doubleValue { hangTimeout = milliseconds / 1000 }
    let own = members.filter { !ConfigLoader.hubInstanceKeys.contains($0.0) }
    return InstanceConfigFile(pluginConfig: .object(own), hangTimeout: hangTimeout)
  }
}
