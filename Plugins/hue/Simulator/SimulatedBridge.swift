import Foundation
import HueProtocol
import PatchbayValues
import Synchronization

/// A simulated Hue bridge and its v1 API, shared by the HTTP server and the control socket:
/// its state is one value behind a lock, so every request sees and leaves it whole.
final class SimulatedBridge: Sendable {
  struct Settings: Sendable {
    var lightRate = 10.0
    var groupRate = 1.0
    var overLimit = OverLimitPolicy.drop
    /// How long a press of the link button allows pairing.
    var linkWindowSeconds = 30.0
    /// Print each light's new state (`light-state ID JSON`) on standard output, for a program
    /// that waits on the bridge rather than asking it again and again.
    var printsLightStates = false
  }

  /// An HTTP answer: status and JSON (or HTML for 429/503) body.
  struct Answer: Sendable {
    var status: Int
    var body: String
    var contentType = "application/json"

    static func json(_ value: JSONValue) -> Answer { Answer(status: 200, body: value.text) }
    static func errors(_ errors: [HueAPIError]) -> Answer { .json(.array(errors.map(\.json))) }
  }

  let settings: Settings
  let record: CommandRecord
  private let state: Mutex<BridgeState>

  init(
    lights: [String: HueLight], groups: [String: HueGroup], usernames: Set<String>, settings: Settings,
    record: CommandRecord
  ) {
    self.settings = settings
    self.record = record
    state = Mutex(
      BridgeState(lights: lights, groups: groups, usernames: usernames, settings: settings, record: record))
  }

  /// Answers one request. `path` is the URL path without query.
  func handle(method: String, path: String, body: [UInt8]) -> Answer {
    state.withLock { $0.handle(method: method, path: path, body: body) }
  }

  func pressLinkButton() { state.withLock { $0.pressLinkButton() } }

  /// How long each answer is held back (a slow or hanging bridge).
  var latencyMilliseconds: Int { state.withLock { $0.latencyMilliseconds } }
  func setLatency(milliseconds: Int) { state.withLock { $0.setLatency(milliseconds: milliseconds) } }

  func setLight(_ id: String, _ values: [String: JSONValue]) throws(ControlError) {
    try state.withLock { (bridge) throws(ControlError) in try bridge.setLight(id, values) }
  }

  func setReachable(_ id: String, _ reachable: Bool) throws(ControlError) {
    try state.withLock { (bridge) throws(ControlError) in try bridge.setReachable(id, reachable) }
  }

  func lightJSON(_ id: String) -> JSONValue? { state.withLock { $0.lightJSON(id) } }
  func allLightsJSON() -> JSONValue { state.withLock { $0.allLightsJSON } }
  func counterText() -> String { state.withLock { $0.counterText } }
}

struct ControlError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
