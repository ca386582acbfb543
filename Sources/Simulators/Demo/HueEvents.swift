import ChildProcesses
import Foundation

/// What the Hue simulator (started with `--print-events`) says as it happens: each command it
/// received (`command RECORD_LINE`) and each light's new state (`light-state ID JSON`). The
/// demo waits on these lines instead of asking the bridge again and again.
struct HueEvents {
  let simulator: ChildProcess
  /// Its control socket, where the lights' states are asked for.
  let control: String

  /// How many lines the simulator has printed: a mark to wait after.
  var mark: Int { simulator.lineCount }

  /// The record lines of the commands printed after line `after`.
  func commands(after: Int = 0) -> [String] {
    simulator.lines.dropFirst(after).filter { $0.hasPrefix("command ") }.map { String($0.dropFirst(8)) }
  }

  /// Waits until `count` accepted commands matching `matches` came after line `after`, showing
  /// each as it arrives; returns them (described, in degrees and percent).
  @discardableResult
  func waitForCommands(
    _ count: Int, after: Int, within seconds: Double = 60, matching matches: (String) -> Bool,
    show: (String) -> Void
  ) throws -> [String] {
    let deadline = Date().addingTimeInterval(seconds)
    var found: [String] = []
    var read = after
    while true {
      let lines = simulator.lines
      for line in lines.dropFirst(read) where line.hasPrefix("command ") && found.count < count {
        guard let described = PartyStory.describe(recordLine: String(line.dropFirst(8))), matches(described) else {
          continue
        }
        show(described)
        found.append(described)
      }
      read = lines.count
      if found.count >= count { return found }
      do {
        try simulator.waitForLine(containing: "command ", after: read, within: max(0, deadline.timeIntervalSinceNow))
      } catch {
        throw DemoError("the Hue simulator did not accept \(count) such commands within \(Int(seconds)) s")
      }
    }
  }

  /// Waits until the lights' states (described as `PartyStory.lightStates` does) are `done`;
  /// returns them. Each change of a light wakes it to ask again.
  @discardableResult
  func waitForLights(within seconds: Double = 60, until done: ([String: String]) -> Bool) throws -> [String: String] {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
      // Marked before asking: a change after the answer is a line after the mark.
      let before = mark
      let states = try PartyStory.lightStates(control: control)
      if done(states) { return states }
      do {
        try simulator.waitForLine(
          containing: "light-state ", after: before, within: max(0, deadline.timeIntervalSinceNow))
      } catch {
        throw DemoError("the lights are \(states) after \(Int(seconds)) s")
      }
    }
  }
}
