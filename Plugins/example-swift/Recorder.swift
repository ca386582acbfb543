import Foundation
import PatchbayPluginKit

/// Appends one JSON line per received value, flushed at once so a test can read it while the
/// plugin runs: {"port": "level", "type": "integer", "value": "42"}.
final class Recorder {
  let handle: FileHandle

  init(path: String) throws {
    // The folder may not exist yet (a fresh machine, /tmp cleaned): make it, as `run` does for state.
    let folder = (path as NSString).deletingLastPathComponent
    if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
    if !FileManager.default.fileExists(atPath: path) {
      FileManager.default.createFile(atPath: path, contents: nil)
    }
    guard let handle = FileHandle(forWritingAtPath: path) else {
      throw PluginError.config("record: cannot open '\(path)' for writing")
    }
    handle.seekToEndOfFile()
    self.handle = handle
  }

  func append(port: String, value: Value) {
    let line = "{\"port\":\"\(port)\",\"value\":\(Self.json(value))}\n"
    handle.write(Data(line.utf8))
  }

  static func json(_ value: Value) -> String {
    switch value {
    case .trigger: return "\"trigger\""
    case .bool(let flag): return flag ? "true" : "false"
    case .integer(let integer): return String(integer)
    case .number(let number): return String(number)
    case .text(let text):
      let data = try? JSONSerialization.data(withJSONObject: [text])
      return String(decoding: (data ?? Data("[\"\"]".utf8)).dropFirst().dropLast(), as: UTF8.self)
    case .color(let c): return "{\"hue\":\(c.hue),\"saturation\":\(c.saturation),\"brightness\":\(c.brightness)}"
    case .light(let light):
      var parts: [String] = []
      if let on = light.on { parts.append("\"on\":\(on)") }
      if let brightness = light.brightness { parts.append("\"brightness\":\(brightness)") }
      if let color = light.color { parts.append("\"color\":{\"hue\":\(color.hue),\"saturation\":\(color.saturation)}") }
      if let mired = light.colorTemperature { parts.append("\"color_temperature\":\(mired)") }
      if let ms = light.transitionMs { parts.append("\"transition_ms\":\(ms)") }
      return "{" + parts.joined(separator: ",") + "}"
    case .button(let button):
      let names: [ButtonAction: String] = [
        .down: "down", .up: "up", .click: "click", .doubleClick: "double_click", .hold: "hold",
      ]
      return "{\"action\":\"\(names[button.action]!)\",\"queued\":\(button.queued),\"age_ms\":\(button.ageMs)}"
    }
  }
}
