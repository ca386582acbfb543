import Foundation
import PatchbayHub
import PatchbayRecorder
import PatchbayValues
import Synchronization

/// Chooses which of the live values go into the history (the `[recorder]` table: its patterns,
/// else every state output) and hands them to the recorder. Runs on the live feed's thread and
/// never waits for the disk: the recorder only queues.
final class HistoryFeed: Sendable {
  private struct Ports {
    var stateOutputs: Set<String> = []
    var known: Set<String> = []
    var lastRefresh = ContinuousClock.now - .seconds(3600)
  }

  let settings: RecorderSettings
  let recorder: HistoryRecorder
  private let socket: String
  private let ports = Mutex(Ports())

  init(settings: RecorderSettings, recorder: HistoryRecorder, socket: String) {
    self.settings = settings
    self.recorder = recorder
    self.socket = socket
  }

  /// The hub is (again) reachable: its ports may have changed.
  func hubConnected() {
    if settings.ports == nil { refreshPorts() }
  }

  /// One `INSTANCE.PORT VALUE` line of the live feed.
  func observe(_ line: String) {
    guard let space = line.firstIndex(of: " ") else { return }
    let address = String(line[..<space])
    let text = String(line[line.index(after: space)...])
    var isStateOutput = false
    if settings.ports == nil {
      // A port the last `status` did not have (a reload added it): ask again, at most every 10 s.
      let (state, stale) = ports.withLock { ports in
        (
          ports.stateOutputs.contains(address),
          !ports.known.contains(address) && ContinuousClock.now - ports.lastRefresh > .seconds(10)
        )
      }
      if stale { refreshPorts() }
      isStateOutput = state || (stale && ports.withLock { $0.stateOutputs.contains(address) })
    }
    guard settings.records(address, isStateOutput: isStateOutput) else { return }
    recorder.record(port: address, value: JSONValue.parse(text) ?? .string(text))
  }

  private func refreshPorts() {
    ports.withLock { $0.lastRefresh = ContinuousClock.now }
    guard let status = try? ControlClient.request(ControlRequest(command: .status), socket: socket).status else {
      return
    }
    var stateOutputs: Set<String> = []
    var known: Set<String> = []
    for instance in status.instances {
      for port in instance.ports where port.direction == .output {
        known.insert("\(instance.name).\(port.name)")
        if port.kind == .state { stateOutputs.insert("\(instance.name).\(port.name)") }
      }
    }
    ports.withLock { ports in
      ports.stateOutputs = stateOutputs
      ports.known = known
    }
  }
}
