import PatchbayValues
import PatchbayWire

/// What the supervisor needs of one running plugin instance: a way to send it messages and
/// signals, and what it reports (through `PluginChannelDelegate`). `PluginProcess` is the real
/// one (a plugin-host child over a socketpair); tests give the hub an in-memory one, so routes,
/// restarts, back-off, reloads and back-pressure run without processes.
package protocol PluginChannel: AnyObject, Sendable {
  var pid: Int32 { get }
  /// Sends a message; false when the plugin is gone. Blocks while the plugin's socket is full.
  @discardableResult func send(_ message: HubMessage) -> Bool
  /// Sends without blocking on a full socket.
  func trySend(_ message: HubMessage) -> PacketSocket.SendResult
  /// `trySend(.input(port:value:hops:))`, the hop's own send: a channel may write the frame
  /// without making the message first.
  func trySendInput(port: UInt32, value: Value, hops: UInt8) -> PacketSocket.SendResult
  /// Sends messages in order without blocking on a full socket, in as few system calls as it
  /// can: how many went out (the rest did not fit), or nil when the plugin is gone.
  func trySend(_ messages: [HubMessage]) -> Int?
  /// Sends messages in order, blocking while the socket is full: how many went out (fewer:
  /// the plugin went away after them), or nil when it was gone before the first.
  func send(_ messages: [HubMessage]) -> Int?
  func signal(_ number: Int32)
  /// The supervisor gave up on it (not answering): say so at its exit, and end it.
  func markHung(seconds: Double)
  func terminate()
  /// The plugin's own count of inputs it took and finished (untrusted), if it keeps one.
  var inputLedger: (taken: UInt64, finished: UInt64)? { get }
  /// How many processes the plugin left behind were killed after it ended.
  var escapedDescendantsKilled: Int { get }
  /// How many ended children the plugin never waited for (zombies) were reaped after it ended.
  var inheritedZombiesReaped: Int { get }
  /// What contains it beyond its own process (its cgroup and limits, or why only rlimits).
  var containment: String? { get }
}

extension PluginChannel {
  package var containment: String? { nil }

  package func trySendInput(port: UInt32, value: Value, hops: UInt8) -> PacketSocket.SendResult {
    trySend(.input(port: port, value: value, hops: hops))
  }
  package var inheritedZombiesReaped: Int { 0 }

  package func trySend(_ messages: [HubMessage]) -> Int? {
    for (count, message) in messages.enumerated() {
      switch trySend(message) {
      case .sent: continue
      case .wouldBlock: return count
      case .closed: return count == 0 ? nil : count
      }
    }
    return messages.count
  }

  package func send(_ messages: [HubMessage]) -> Int? {
    for (count, message) in messages.enumerated() where !send(message) {
      return count == 0 ? nil : count
    }
    return messages.count
  }
}

/// What a plugin channel reports, on its own threads.
package protocol PluginChannelDelegate: AnyObject, Sendable {
  func pluginChannel(_ channel: any PluginChannel, received message: HostMessage)
  /// The messages of one read, in order (a reader takes what is queued at once).
  func pluginChannel(_ channel: any PluginChannel, received messages: [HostMessage])
  func pluginChannel(_ channel: any PluginChannel, exited reason: ExitReason)
  /// A line the process wrote to its standard output or error (`stream`: "stdout", "stderr").
  func pluginChannel(_ channel: any PluginChannel, wrote line: String, on stream: String)
}

extension PluginChannelDelegate {
  package func pluginChannel(_ channel: any PluginChannel, wrote line: String, on stream: String) {}

  package func pluginChannel(_ channel: any PluginChannel, received messages: [HostMessage]) {
    for message in messages { pluginChannel(channel, received: message) }
  }
}

/// Starts one plugin instance's channel: the plugin host's path, the instance name, the host's
/// arguments, and who hears from it.
package typealias PluginLauncher =
  @Sendable (
    _ host: String, _ instance: String, _ arguments: [String], _ supervision: SupervisionSettings,
    _ delegate: any PluginChannelDelegate
  ) throws -> any PluginChannel
