/// The `[hub]` section.
public struct HubSettings: Sendable, Equatable {
  public var stateDirectory: String
  public var controlSocket: String
  /// Directories searched for plugin libraries, in order, before the built-in defaults.
  public var pluginPath: [String]
  public var logLevel: String
  /// The file that set `state_directory`, if one did (where a problem with it is reported).
  public var stateDirectoryFile: String?
}

/// The whole configuration, after every file was read and checked for structure.
public struct HubConfig: Sendable {
  public var files: [String]
  public var hub: HubSettings
  public var instances: [InstanceSpec]
  public var routes: [RouteSpec]
  public var scenes: [SceneSpec] = []
  /// The `[recorder]` table (patchbay-web's history).
  public var recorder = RecorderSettings()

  public func instance(named name: String) -> InstanceSpec? { instances.first { $0.name == name } }
}
