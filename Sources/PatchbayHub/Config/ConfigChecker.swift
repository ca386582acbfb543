import Foundation
import PatchbayValues

/// `patchbay check`: structure, plugins, the ports each instance declares for its config
/// (asked in a plugin-host process), and every route against them, all in one pass.
public struct ConfigChecker: Sendable {
  public let locator: PluginLocator

  public init(locator: PluginLocator) { self.locator = locator }

  public init(config: HubConfig) { locator = PluginLocator(configured: config.hub.pluginPath) }

  /// Every problem found, in file order; empty when the config is good.
  public func check(_ config: HubConfig, skippingRoutesTo unparsed: Set<String> = []) -> [ConfigDiagnostic] {
    var diagnostics: [ConfigDiagnostic] = []
    let installed = locator.installedPlugins().map(\.name)
    var libraries: [(InstanceSpec, String)] = []
    for spec in config.instances {
      if let library = locator.library(for: spec.plugin) {
        libraries.append((spec, library))
      } else {
        diagnostics.append(
          ConfigDiagnostic(
            file: spec.file, key: "instances.\(spec.name).plugin",
            message: "unknown plugin '\(spec.plugin)'" + Suggestion.hint(for: spec.plugin, in: installed)
              + " (installed: \(installed.isEmpty ? "none" : installed.joined(separator: ", ")))"))
      }
    }
    let probeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("patchbay-check-\(getpid())")
    defer { try? FileManager.default.removeItem(at: probeDirectory) }
    let outcomes = Locked<[String: PortProbe.Outcome]>([:])
    let work = libraries
    DispatchQueue.concurrentPerform(iterations: work.count) { index in
      let (spec, library) = work[index]
      let directory = probeDirectory.appendingPathComponent(spec.name).path
      try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let outcome = PortProbe.create(spec, library: library, locator: locator, stateDirectory: directory)
      outcomes.withLock { $0[spec.name] = outcome }
    }
    var catalog: PortCatalog = [:]
    var broken: Set<String> = Set(config.instances.map(\.name)).subtracting(libraries.map(\.0.name)).union(
      unparsed.subtracting(config.instances.map(\.name)))
    for (spec, _) in libraries {
      switch outcomes.withLock({ $0[spec.name] }) {
      case .created(_, let ports)?: catalog[spec.name] = ports
      case .failed(let message)?:
        broken.insert(spec.name)
        diagnostics.append(
          ConfigDiagnostic(
            file: spec.file, key: "instances.\(spec.name)", message: "plugin '\(spec.plugin)': \(message)"))
      default:
        broken.insert(spec.name)
      }
    }
    for route in config.routes {
      // A route touching an instance that is already reported gets its other checks only.
      if ([route.from.instance] + route.targets.map(\.instance)).contains(where: broken.contains) { continue }
      if case .failure(let errors) = RouteCompiler.compile(route, catalog: catalog) {
        diagnostics += errors.diagnostics
      }
    }
    return diagnostics
  }
}

extension [ConfigDiagnostic] {
  /// Instances named by diagnostics about `instances.NAME...`.
  public var instanceNames: Set<String> {
    Set(
      compactMap { diagnostic in
        guard let key = diagnostic.key, key.hasPrefix("instances.") else { return nil }
        return key.dropFirst("instances.".count).split(separator: ".").first.map(String.init)
      })
  }
}

/// A value behind a lock, for results gathered from concurrent work.
final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()
  init(_ value: Value) { self.value = value }
  func withLock<R>(_ body: (inout Value) -> R) -> R {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}

#if canImport(Glibc)
  import Glibc
#endif
