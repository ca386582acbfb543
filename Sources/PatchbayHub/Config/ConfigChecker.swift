import Foundation
import PatchbayCore
import PatchbayValues
import Synchronization

/// `patchbay check`: structure, plugins, the ports each instance declares for its config
/// (asked in a plugin-host process), and every route against them, all in one pass.
public struct ConfigChecker: Sendable {
  public let locator: PluginLocator

  public init(locator: PluginLocator) { self.locator = locator }

  public init(config: HubConfig) { locator = PluginLocator(configured: config.hub.pluginPath) }

  /// Every problem found, in file order; empty when the config is good.
  public func check(_ config: HubConfig, skippingRoutesTo unparsed: Set<String> = []) -> [ConfigDiagnostic] {
    check(config, skippingRoutesTo: unparsed, skippingUndefinedInstances: false).diagnostics
  }

  /// `patchbay check`'s problems and, apart, the warnings plugins logged while they were
  /// created (what is valid but likely a mistake); warnings never refuse a config.
  public func report(_ config: HubConfig, after structural: [ConfigDiagnostic], files: [String]) -> (
    problems: [ConfigDiagnostic], warnings: [ConfigDiagnostic]
  ) {
    let lost = files.filter { !config.files.contains($0) && TOMLDocument.cannotRead($0) }
    let semantic = check(config, skippingRoutesTo: structural.instanceNames, skippingUndefinedInstances: !lost.isEmpty)
    return (combine(config, structural: structural, lost: lost, semantic), semantic.warnings)
  }

  /// `patchbay check`: the loader's diagnostics (`structural`) followed by this checker's. A
  /// file of `files` that cannot be read at all (permissions, a directory) hides every instance
  /// it defines, so a route elsewhere naming an instance that no readable file defines is not
  /// reported as an unknown instance (it may well be defined there): the file is reported
  /// once, saying how many routes were left unchecked because of it. (A file with a syntax
  /// error keeps the usual reports: its mistakes are visible and fixed in one go.)
  public func check(_ config: HubConfig, after structural: [ConfigDiagnostic], files: [String]) -> [ConfigDiagnostic] {
    report(config, after: structural, files: files).problems
  }

  private func combine(
    _ config: HubConfig, structural: [ConfigDiagnostic], lost: [String],
    _ semantic: (diagnostics: [ConfigDiagnostic], unchecked: Int, warnings: [ConfigDiagnostic])
  ) -> [ConfigDiagnostic] {
    let unchecked = semantic.unchecked
    var result = structural
    if !structural.contains(where: { $0.key == "hub.state_directory" }),
      let problem = StateDirectoryCheck.problem(config.hub.stateDirectory)
    {
      result.append(
        ConfigDiagnostic(
          file: config.hub.stateDirectoryFile ?? config.files.first ?? "", key: "hub.state_directory",
          message: problem + (config.hub.stateDirectoryFile == nil ? " (the default; set hub.state_directory)" : "")))
    }
    if unchecked > 0 {
      let routes = unchecked == 1 ? "1 route" : "\(unchecked) routes"
      for file in lost {
        guard let index = result.firstIndex(where: { $0.file == file }) else { continue }
        let others = lost.filter { $0 != file }
        result[index].message +=
          "; \(routes) naming instances that no readable file defines \(unchecked == 1 ? "was" : "were") not checked"
          + " (they may be defined here\(others.isEmpty ? "" : " or in " + others.joined(separator: ", ")))"
      }
    }
    return result + semantic.diagnostics + hubPathDiagnostics(config)
  }

  /// The control socket's path must be free or a socket (a running hub's is fine: `check` runs
  /// next to it); anything else the hub would refuse to replace.
  /// Landlock grants only paths that exist: a missing one would silently grant nothing.
  private func sandboxPathDiagnostics(_ spec: InstanceSpec) -> [ConfigDiagnostic] {
    let lists = [("read", spec.sandbox.read), ("write", spec.sandbox.write)]
    return lists.flatMap { key, paths in
      paths.filter { !FileManager.default.fileExists(atPath: $0) }.map { path in
        ConfigDiagnostic(
          file: spec.file, key: "instances.\(spec.name).sandbox.\(key)",
          message: "'\(path)' does not exist: the sandbox can grant only an existing file or folder"
            + " (create it first, or remove it from the list)")
      }
    }
  }

  private func hubPathDiagnostics(_ config: HubConfig) -> [ConfigDiagnostic] {
    guard case .occupied = ControlSocketPath.inspect(config.hub.controlSocket),
      let problem = ControlSocketPath.problem(config.hub.controlSocket)
    else { return [] }
    return [ConfigDiagnostic(file: config.files.first ?? "", key: "hub.control_socket", message: problem)]
  }

  private func check(_ config: HubConfig, skippingRoutesTo unparsed: Set<String>, skippingUndefinedInstances: Bool)
    -> (diagnostics: [ConfigDiagnostic], unchecked: Int, warnings: [ConfigDiagnostic])
  {
    var diagnostics: [ConfigDiagnostic] = []
    let installed = locator.installedPlugins().map(\.name)
    var libraries: [(InstanceSpec, String)] = []
    for spec in config.instances {
      diagnostics += sandboxPathDiagnostics(spec)
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
      // The probe's directory is in /tmp: private and never through a link, like the real one.
      let outcome: PortProbe.Outcome
      if let problem = InstanceStateDirectory.prepare(directory) {
        outcome = .failed(problem)
      } else {
        InstanceStateDirectory.copyForProbe(config.hub.stateDirectory, instance: spec.name, to: directory)
        outcome = PortProbe.create(spec, library: library, locator: locator, stateDirectory: directory)
      }
      outcomes.withLock { $0[spec.name] = outcome }
    }
    var catalog: PortCatalog = [:]
    var warnings: [ConfigDiagnostic] = []
    var broken: Set<String> = Set(config.instances.map(\.name)).subtracting(libraries.map(\.0.name)).union(
      unparsed.subtracting(config.instances.map(\.name)))
    for (spec, _) in libraries {
      switch outcomes.withLock({ $0[spec.name] }) {
      case .created(_, let ports, let logged)?:
        catalog[spec.name] = ports
        warnings += logged.map { ConfigDiagnostic(file: spec.file, key: "instances.\(spec.name)", message: $0) }
      case .misnamed(let message)?:
        // The message starts with the key (`instances.NAME.plugin = ...`), as the hub logs it.
        broken.insert(spec.name)
        diagnostics.append(ConfigDiagnostic(file: spec.file, message: message))
      case .failed(let message)?:
        broken.insert(spec.name)
        // A plugin reports several mistakes one per line: each is a problem of its own.
        for line in message.split(separator: "\n") {
          diagnostics.append(
            ConfigDiagnostic(
              file: spec.file, key: "instances.\(spec.name)", message: "plugin '\(spec.plugin)': \(line)"))
        }
      default:
        broken.insert(spec.name)
      }
    }
    if !config.scenes.isEmpty { catalog[SceneSpec.instanceName] = SceneCompiler.ports(of: config.scenes) }
    for scene in config.scenes {
      // Values for instances that are already reported are not checked again.
      let reachable = SceneSpec(
        name: scene.name, file: scene.file, settings: scene.settings.filter { !broken.contains($0.target.instance) })
      if case .failure(let errors) = SceneCompiler.compile(reachable, catalog: catalog) {
        diagnostics += errors.diagnostics
      }
    }
    let defined = Set(config.instances.map(\.name))
    var unchecked = 0
    for route in config.routes {
      let involved = [route.from.instance] + route.targets.map(\.instance)
      // A route touching an instance that is already reported gets its other checks only.
      if involved.contains(where: broken.contains) { continue }
      if skippingUndefinedInstances, involved.contains(where: { !defined.contains($0) }) {
        unchecked += 1
        continue
      }
      if case .failure(let errors) = RouteCompiler.compile(route, catalog: catalog) {
        diagnostics += errors.diagnostics
      }
    }
    return (diagnostics, unchecked, warnings)
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

/// A value behind a lock, for results gathered from concurrent work (a class, so closures can
/// share it; the Mutex makes it Sendable without an unchecked promise).
final class Locked<Value: Sendable>: Sendable {
  private let value: Mutex<Value>
  init(_ value: Value) { self.value = Mutex(value) }
  func withLock<R>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
}

#if canImport(Glibc)
  import Glibc
#endif
