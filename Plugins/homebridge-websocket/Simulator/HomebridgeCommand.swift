import ArgumentParser
import Foundation
import HomebridgeProtocol
import SimulatorControl

/// `patchbay-sim homebridge`: a Homebridge with the homebridge-websocket plugin, speaking
/// its real protocol on a real websocket, with HomeKit's side played from the console.
public struct HomebridgeCommand: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "homebridge",
    abstract: "Simulate Homebridge with the homebridge-websocket plugin (and a bit of HomeKit).",
    discussion: """
      Prints one line per client message, HomeKit write and scene. Control commands come from \
      stdin and from --control PATH:
        homekit-set NAME CHARACTERISTIC VALUE   HomeKit writes a value (sends 'set' to the client)
        homekit-get NAME CHARACTERISTIC         HomeKit reads (cache answers; sends 'get' to the client)
        table                                   prints the accessories and their values
      Automations: 'ws_morning.On=true: scene Good Morning: ws_morning.On=false, ws_evening.On=false'
      A frame that kills the real Node process (setValue or callback for an accessory named like a \
      member every JavaScript object has, e.g. 'constructor') ends the simulator with exit status 1.
      """)

  @Option(help: "TCP port of the websocket server (0: one the system chooses; the 'listening on' line says which).")
  var port: Int = 4050

  @Option(help: "Address to listen on (the real plugin listens on all addresses: 0.0.0.0).")
  var host: String = "127.0.0.1"

  @Option(name: .customLong("automation"), help: "A HomeKit automation 'A.C=V: scene NAME: A.C=V, ...' (repeatable).")
  var automationTexts: [String] = []

  @Option(name: .customLong("automations"), help: "A file with one automation per line (# starts a comment).")
  var automationsFile: String?

  @Option(help: "A Unix socket path for control commands.")
  var control: String?

  @Option(help: "Keep the accessory list (never the values) in this file across restarts, like Homebridge's cache.")
  var cache: String?

  public init() {}

  public func run() async throws {
    var texts = automationTexts
    if let automationsFile {
      let content = try String(contentsOfFile: automationsFile, encoding: .utf8)
      texts += content.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
    let automations: [Automation]
    do {
      automations = try texts.map { try Automation(parsing: $0) }
    } catch {
      throw ValidationError("\(error)")
    }
    let server = try HomebridgeServer(automations: automations, cache: cache.map { AccessoryCache(path: $0) })
    let bound = try server.start(host: host, port: port)
    Console.print(
      "homebridge-websocket simulator listening on ws://\(host):\(bound) "
        + "(\(server.accessoryCount()) cached accessories, \(automations.count) automations)")
    if let control {
      // Each command's answer lines end with an empty line: a command may answer several.
      _ = try ControlLineServer(path: control, group: server.group) { line in
        ((try? server.control(line).wait()) ?? ["error: the simulator is shutting down"]).joined(separator: "\n") + "\n"
      }
      Console.print("control socket \(control)")
    }
    readCommands(from: server)
    try await server.closed.get()
  }

  /// Reads control commands from stdin on a thread of its own; stops at end of input.
  private func readCommands(from server: HomebridgeServer) {
    let thread = Thread {
      while let line = readLine() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { continue }
        if let lines = try? server.control(trimmed).wait() { Console.print(lines) }
      }
    }
    thread.start()
  }
}
