import Foundation
import PatchbayValues

/// Where an instance is in its life, as `status` shows it.
public enum InstancePhase: String, Sendable, Codable {
  case starting, running, restarting, failed, stopping, stopped
}

/// A snapshot of one instance for `patchbay status`.
public struct InstanceStatus: Sendable, Codable {
  public var name: String
  public var plugin: String
  public var phase: InstancePhase
  public var pid: Int32?
  public var uptimeSeconds: Double?
  public var restarts: Int
  public var messagesIn: Int
  public var messagesOut: Int
  public var queueDepth: Int
  public var drops: Int
  /// Calls of the plugin that its host refused (invalid values, wrong port or state).
  public var refusals: Int
  /// How often this instance's publishing had to wait for a full consumer (back-pressure: the
  /// events were delivered, later). Drops are counted on the consumer and the route.
  public var backPressureWaits: Int
  /// Event publishes its plugin host answered PB_ERR_BUSY (an ABI 1.1 plugin, host buffer full).
  public var publishBusy: Int
  /// Publishes that waited in the plugin host for room (its buffer or socket full), and
  /// `wait_for_room` calls that waited: the host's back-pressure, apart from the hub's waits.
  public var publishWaits: Int
  /// The plugin's own peer connection (its `PB_PORT_PEER_STATUS` output), while it runs:
  /// "connected", "disconnected" or the plugin's text ("taken over"); nil for plugins without one.
  public var peer: String?
  /// The values of the text outputs the plugin asked status to show (`PB_PORT_SHOWN_IN_STATUS`),
  /// by port name, while the instance runs: when a schedule fires next.
  public var shown: [String: String]?
  public var lastExit: String?
  public var failure: String?
  public var failedSince: Date?
  public var ports: [PortDescriptor]
  /// The plugin-host process's resident memory (RSS), read by the hub; nil when it does not run.
  public var residentBytes: Int? = nil
  /// Control connections from this instance's processes, refused (absent when none).
  public var controlRefusals: Int? = nil
  /// What contains the running instance beyond its process: its cgroup and limits, or why
  /// there are only the per-process rlimits.
  public var containment: String? = nil
  /// The config's `room` for this instance (absent when it has none).
  public var room: String? = nil
  /// The instance's confinement (nil before its first start).
  public var sandbox: SandboxStatus? = nil
}
