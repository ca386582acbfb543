import Foundation
import PatchbayTestSupport

/// A `homekit` instance (bridge "Bedroom", one lamp) in the WebHarness's hub, and aiohomekit
/// (through the HAP tests' driver script, Tests/HAPTests/Scripts/controller.py) to pair with it.
struct HomeKitBridgeUnderTest {
  static let instance = "bedroom"
  static let controllerScript = HubUnderTest.repositoryRoot + "/Tests/HAPTests/Scripts/controller.py"

  let harness: WebHarness
  /// The bridge's port, held for it (the sandbox grants a homekit instance its configured port).
  let reservation: PortReservation

  /// Starts the harness's hub with the bridge beside its probe.
  init(_ harness: WebHarness) throws {
    self.harness = harness
    reservation = try PortReservation()
    let plugins = harness.directory.path + "/plugins"
    try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: plugins + "/libpatchbay-plugin-homekit.so", withDestinationPath: BuildProducts.plugin("homekit"))
    try harness.startHub(
      extra: """
        [instances.\(Self.instance)]
        plugin = "homekit"
        name = "Bedroom"
        port = \(reservation.port)
        [[instances.\(Self.instance).accessories]]
        name = "Lamp"
        service = "lightbulb"
        """)
  }

  /// The setup code the bridge keeps (written at its first start).
  func setupCode() throws -> String {
    let path = harness.directory.path + "/state/instances/\(Self.instance)/identity.json"
    var code: String?
    try eventually("the bridge's identity at \(path)") {
      guard let data = FileManager.default.contents(atPath: path),
        let identity = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      else { return false }
      code = identity["setup_code"] as? String
      return code != nil
    }
    return code!
  }

  /// Pairs aiohomekit with `code`: the controller, its pairing id.
  func pair(code: String) throws -> (controller: Controller, id: String) {
    let controller = try Controller(port: reservation.port)
    let data = try controller.send(["cmd": "pair", "pin": code]) as? [String: Any]
    guard let id = data?["iOSPairingId"] as? String else { throw WebTestError("no pairing id in \(data ?? [:])") }
    return (controller, id)
  }

  /// aiohomekit driven one JSON command per line (the driver script's protocol).
  final class Controller {
    let process: ChildProcess

    init(port: Int) throws {
      let python = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
      process = try ChildProcess(
        python.python, [HomeKitBridgeUnderTest.controllerScript, "127.0.0.1", String(port)], keepInputOpen: true)
      try process.waitForLine(containing: "\"ready\"", within: 120)
    }

    deinit { _ = try? process.terminate(within: 10) }

    /// The command's answer (`ok`); throws its error.
    func send(_ command: [String: Any]) throws -> Any {
      let before = process.lineCount
      try process.write(String(decoding: try JSONSerialization.data(withJSONObject: command), as: UTF8.self) + "\n")
      var answer: [String: Any]?
      try eventually("an answer to \(command); output:\n\(process.output)", within: 120) {
        answer = process.lines.dropFirst(before).lazy.compactMap {
          try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["ok"] != nil || $0["error"] != nil }
        return answer != nil || !process.isRunning
      }
      guard let answer, let ok = answer["ok"] else {
        throw WebTestError("aiohomekit: \(answer ?? [:]); output:\n\(process.output)")
      }
      return ok
    }
  }
}
