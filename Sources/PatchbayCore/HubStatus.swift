import Foundation

/// What `patchbay status` shows.
public struct HubStatus: Sendable, Codable {
  public struct Route: Sendable, Codable {
    public var id: String
    public var key: String
    /// Values the route passed on to its targets (after its filter and transform).
    public var values: Int
    public var drops: Int
    /// Values dropped because they had come round a loop too often (WireProtocol.maximumHops).
    public var loopDrops: Int?
  }
  public var version: String
  public var pid: Int32
  public var uptimeSeconds: Double
  public var instances: [InstanceStatus]
  public var routes: [Route]
  public var inactiveRoutes: [String]
  /// Scenes with how often each was activated since the hub started.
  public var scenes: [Scene] = []
  /// The hub's resident memory (RSS), read by the hub itself (a client in another user or pid
  /// namespace cannot see its /proc entry); nil from hubs before it, or when unreadable.
  public var residentBytes: Int? = nil

  public struct Scene: Sendable, Codable {
    public var name: String
    public var ports: Int
    public var activations: Int
  }
}
