import Foundation
import PatchbayCore

/// `patchbay plugins`: describes installed libraries and configured instances, each inside
/// its own plugin-host process so a broken library cannot crash the caller.
public struct PluginCatalog: Sendable {
  public let locator: PluginLocator

  public init(locator: PluginLocator) { self.locator = locator }

  /// One line per installed library: name, version, ABI, description, path, or why it is refused.
  public func describeAll() -> [String] {
    locator.installedPlugins().map { entry in
      switch PortProbe.describe(library: entry.path, locator: locator) {
      case .described(let info):
        let line =
          "\(info.name) \(info.version) (ABI \(info.abiMajor).\(info.abiMinor)) - \(info.description)\n    \(entry.path)"
        // The descriptor's name is the plugin's; a file named otherwise cannot be used as either.
        guard info.name != entry.name else { return line }
        return line
          + "\n    found as '\(entry.name)' but named '\(info.name)' in its descriptor: refused by check and run"
          + " until the file is renamed to \(info.name).so"
      case .failed(let reason), .misnamed(let reason):
        return "\(entry.name): REFUSED: \(reason)"
      case .created:
        return "\(entry.name): unexpected answer"
      }
    }
  }

  /// The ports of every configured instance.
  public func describePorts(of config: HubConfig) -> [String] {
    var lines: [String] = []
    for spec in config.instances {
      guard let library = locator.library(for: spec.plugin) else {
        lines.append("\(spec.name): plugin '\(spec.plugin)' is not installed")
        continue
      }
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("patchbay-ports-\(spec.name)").path
      if let problem = InstanceStateDirectory.prepare(directory, parentToo: false) {
        lines.append("\(spec.name): \(problem)")
        continue
      }
      InstanceStateDirectory.copyForProbe(config.hub.stateDirectory, instance: spec.name, to: directory)
      // The copy may hold the instance's secrets: gone with the probe.
      defer { try? FileManager.default.removeItem(atPath: directory) }
      switch PortProbe.create(spec, library: library, locator: locator, stateDirectory: directory) {
      case .created(_, let ports, _):
        lines.append("\(spec.name) (\(spec.plugin)):")
        for port in ports {
          let text = "  \(port.direction.name) \(spec.name).\(port.name)  \(port.type.name) \(port.kind.name)"
          lines.append(port.description.isEmpty ? text : text + "  - \(port.description)")
        }
      case .failed(let reason), .misnamed(let reason): lines.append("\(spec.name): \(reason)")
      case .described: break
      }
    }
    return lines
  }
}
