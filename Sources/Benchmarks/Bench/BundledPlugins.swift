import ChildProcesses
import Foundation

/// The bundled plugins the start-up benchmark runs, each against its simulator. Adding one (hue,
/// party-lights) is one more entry in `all`: its simulator's arguments and its instance config.
struct BundledPlugin: Sendable {
  var name: String
  /// `patchbay-sim` arguments, given a free TCP port and a control socket path; nil for none.
  var simulator: (@Sendable (_ port: Int, _ control: String) -> [String])?
  /// The `[instances.NAME]` section(s), given the simulator's port.
  var config: @Sendable (_ port: Int) -> String

  static let buttonAddress = "80:e4:da:71:b6:8e"

  static let flic = BundledPlugin(
    name: "flic",
    simulator: { port, control in
      ["flicd", "--port", String(port), "--button", "\(buttonAddress)=bench", "--control", control, "--no-stdin"]
    },
    config: { port in
      """
      [instances.flic]
      plugin = "flic"
      port = \(port)
      click_events = "click_hold"
      expose_up_down = true
      [[instances.flic.buttons]]
      name = "button"
      address = "\(buttonAddress)"

      """
    })

  static let homebridge = BundledPlugin(
    name: "homebridge-websocket",
    simulator: { port, control in ["homebridge", "--port", String(port), "--control", control] },
    config: { port in
      """
      [instances.homekit]
      plugin = "homebridge-websocket"
      url = "ws://127.0.0.1:\(port)"
      [[instances.homekit.accessories]]
      name = "bench"
      service = "Switch"

      """
    })

  static let hue = BundledPlugin(
    name: "hue",
    simulator: { port, control in
      ["hue", "--port", String(port), "--group", "living=1,2,3", "--username", "bench", "--control", control]
    },
    config: { port in
      """
      [instances.lights]
      plugin = "hue"
      bridge = "127.0.0.1:\(port)"
      username = "bench"
      [[instances.lights.groups]]
      name = "living"
      id = "1"
      lights = ["1", "2", "3"]
      expose_lights = true

      """
    })

  /// Needs no peer of its own: it drives the hue instance's group.
  static let partyLights = BundledPlugin(
    name: "party-lights",
    simulator: nil,
    config: { _ in
      """
      [instances.party]
      plugin = "party-lights"
      group = "living"

      """
    })

  static let all = [flic, homebridge, hue, partyLights]
}

/// The bundled plugins' simulators, started once for a benchmark and stopped at the end.
final class SimulatorSet {
  private(set) var processes: [String: ChildProcess] = [:]
  private(set) var ports: [String: Int] = [:]
  private(set) var controls: [String: String] = [:]

  init(_ plugins: [BundledPlugin], tools: BenchTools, directory: String) throws {
    for plugin in plugins {
      let port = MosquittoBroker.freePort()
      ports[plugin.name] = port
      guard let arguments = plugin.simulator else { continue }
      let control = "\(directory)/\(plugin.name).sock"
      controls[plugin.name] = control
      processes[plugin.name] = try ChildProcess(
        tools.simulator, arguments(port, control), standardError: .file("\(directory)/\(plugin.name)-simulator.log"))
      try waitFor("the \(plugin.name) simulator's control socket", within: 60, interval: 10_000) {
        FileManager.default.fileExists(atPath: control)
      }
    }
  }

  func config(_ plugins: [BundledPlugin]) -> String { plugins.map { $0.config(ports[$0.name] ?? 0) }.joined() }

  func stop() { for process in processes.values { _ = try? process.terminate(within: 10) } }
}
