import ArgumentParser
import FlicProtocol
import Foundation
import SimulatorControl

/// `patchbay-sim flicd`: a flicd stand-in that speaks the real protocol on TCP, driven by
/// control lines from stdin, a Unix socket or a script.
public struct FlicdCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "flicd",
    abstract: "Simulate flicd, the Flic button daemon, on a TCP port.",
    discussion: """
      Prints one line per event sent, command received and client (dis)connection.
      \(ControlCommand.usage)
      """)

  @Option(help: "Address to listen on.") var host = "127.0.0.1"
  @Option(help: "TCP port to listen on (0: one the system chooses; the 'listening on' line says which).")
  var port = 5551
  @Option(name: .customLong("button"), help: "A paired button, ADDR=NAME (repeatable).")
  var buttons: [String] = []
  @Option(help: "A Unix socket path taking control lines; each gets a one-line answer.")
  var control: String?
  @Option(help: "A file of control lines to run at start (with `sleep MS` lines).")
  var script: String?
  @Option(help: "Seconds a scan wizard waits for a button in pairing mode.")
  var scanTimeout: Double = 20
  @Flag(help: "Do not read control lines from standard input.")
  var noStdin = false

  public init() {}

  public func validate() throws {
    _ = try parsedButtons()
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
  }

  func parsedButtons() throws -> [(BluetoothAddress, String)] {
    try buttons.map { entry in
      let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, let address = BluetoothAddress(parts[0]), !parts[1].isEmpty else {
        throw ValidationError("--button '\(entry)' must be ADDR=NAME, like 80:e4:da:71:b6:8e=bedside")
      }
      return (address, parts[1])
    }
  }

  public func run() throws {
    var configuration = FlicdServer.Configuration()
    configuration.host = host
    configuration.port = port
    configuration.buttons = try parsedButtons()
    configuration.scanWizardTimeout = .milliseconds(Int64(scanTimeout * 1000))
    let server = FlicdServer(configuration: configuration)
    try server.start()

    let quit = DispatchSemaphore(value: 0)
    let controlSocket = try control.map { path in
      try ControlLineServer(
        path: path,
        answer: { line in
          do {
            return try server.perform(line)
          } catch {
            return "error: \(error)"
          }
        },
        answered: { if $0 == "bye" { quit.signal() } })
    }
    if let path = control { server.log.line("control socket \(path)") }

    let run: @Sendable (String, String) -> Void = { source, line in
      do {
        let answer = try server.perform(line)
        if answer == "bye" { quit.signal() }
        // `ok` is implied; anything else (status, stored) is worth showing.
        if !answer.isEmpty && answer != "ok" && answer != "bye" { server.log.line("\(source): \(answer)") }
      } catch {
        server.log.line("\(source): \(error)")
      }
    }
    if let script {
      let lines = try String(contentsOfFile: script, encoding: .utf8).split(separator: "\n").map(String.init)
      Thread.detachNewThread {
        for line in lines { run("script", line) }
        server.log.line("script done")
      }
    }
    if !noStdin {
      Thread.detachNewThread {
        while let line = readLine() { run("stdin", line) }
      }
    }
    quit.wait()
    server.log.line("quit")
    controlSocket?.close()
    server.shutdown()
  }
}
