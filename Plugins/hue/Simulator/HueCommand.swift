import ArgumentParser
import Foundation
import HueProtocol
import NIOCore
import NIOPosix
import SimulatorControl

/// `patchbay-sim hue`: a Hue bridge speaking the v1 REST API over real HTTP, with its
/// validation, link-button pairing and rate limits, and a record of every command.
public struct HueCommand: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "hue",
    abstract: "Simulate a Hue bridge (v1 REST API) with its rate limits and error answers.",
    discussion: """
      Lights are numbered 1...N; every bridge has group 0 (all lights). Commands come from \
      stdin and from --control PATH, one per line:
      """ + "\n  " + ControlCommand.usage.joined(separator: "\n  "))

  @Option(help: "TCP port of the HTTP server (a real bridge uses 80; 0: one the system chooses).")
  var port: Int = 8000
  @Option(help: "Address to listen on.") var host: String = "127.0.0.1"
  @Option(help: "How many color lights (ids 1...N).") var lights: Int = 3
  @Option(name: .customLong("group"), help: "A bridge group 'NAME=1,2,3' (repeatable; ids from 1).")
  var groupSpecs: [String] = []
  @Option(name: .customLong("username"), help: "A username the bridge already knows (repeatable).")
  var usernames: [String] = []
  @Flag(help: "Start with the link button pressed (pairing open for 30 s).") var linkButtonPressed = false
  @Option(help: "Light commands per second the bridge takes.") var lightRate: Double = 10
  @Option(help: "Group commands per second the bridge takes.") var groupRate: Double = 1
  @Option(help: "Over the limit: drop (answer success, do nothing), 429 or 503.") var overLimit: String = "drop"
  @Option(help: "Requests in progress at once before answering 503 (0: no limit).") var maxConcurrent: Int = 0
  @Option(help: "Delay before each answer, in milliseconds (a slow bridge).") var latencyMs: Int = 0
  @Option(help: "Append every received command as a JSON line to this file.") var record: String?
  @Flag(
    help: ArgumentHelp(
      "Print every received command ('command' and its record line) and each light's new state "
        + "('light-state ID JSON') as it happens.",
      discussion: "For a program that waits on the bridge: the demo does."))
  var printEvents = false
  @Option(help: "A Unix socket path for control commands.") var control: String?
  @Flag(help: "Do not read control commands from stdin.") var noStdin = false

  public init() {}

  public func validate() throws {
    guard (1...63).contains(lights) else { throw ValidationError("--lights must be 1...63") }
    guard OverLimitPolicy(rawValue: overLimit) != nil else {
      throw ValidationError("--over-limit must be drop, 429 or 503")
    }
    guard lightRate > 0, groupRate > 0 else { throw ValidationError("rates must be positive") }
  }

  public func run() async throws {
    var bulbs: [String: HueLight] = [:]
    for id in 1...lights {
      bulbs["\(id)"] = HueLight(
        name: "Light \(id)",
        state: HueLightState(on: false, bri: 254, hue: 8418, sat: 140, ct: 366, colorMode: .colorTemperature))
    }
    var groups: [String: HueGroup] = [:]
    for (index, spec) in groupSpecs.enumerated() {
      let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
      let members = parts.count == 2 ? parts[1].split(separator: ",").map(String.init) : []
      guard parts.count == 2, !members.isEmpty, members.allSatisfy({ bulbs[$0] != nil }) else {
        throw ValidationError("--group '\(spec)' must be NAME=ID,ID,... with ids 1...\(lights)")
      }
      groups["\(index + 1)"] = HueGroup(name: parts[0], lights: members)
    }
    let bridge = SimulatedBridge(
      lights: bulbs, groups: groups, usernames: Set(usernames),
      settings: .init(
        lightRate: lightRate, groupRate: groupRate, overLimit: OverLimitPolicy(rawValue: overLimit)!,
        printsLightStates: printEvents),
      record: try CommandRecord(path: record, printed: printEvents))
    if linkButtonPressed { bridge.pressLinkButton() }
    bridge.setLatency(milliseconds: latencyMs)
    let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let server = try BridgeServer.start(
      bridge: bridge, host: host, port: port, maxConcurrent: maxConcurrent,
      group: eventLoops)
    let bound = server.localAddress?.port ?? port
    say(
      "hue bridge simulator listening on http://\(host):\(bound) (\(lights) lights, \(groups.count) groups + group 0; "
        + "\(lightRate) light and \(groupRate) group commands/s, over the limit: \(overLimit))")
    if let control {
      _ = try ControlLineServer(path: control, group: eventLoops) { ControlCommand.answer($0, bridge: bridge) }
      say("control socket \(control)")
    }
    if !noStdin {
      let thread = Thread {
        while let line = readLine() {
          let trimmed = line.trimmingCharacters(in: .whitespaces)
          guard !trimmed.isEmpty else { continue }
          say(ControlCommand.answer(trimmed, bridge: bridge))
        }
      }
      thread.start()
    }
    try await server.closeFuture.get()
  }
}

/// Prints a line unbuffered, so a test or a demo reading the pipe sees it at once.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
