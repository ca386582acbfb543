import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#endif

/// Appends one JSON line per received value, flushed at once so a test can read it while the
/// plugin runs: {"port": "level", "type": "integer", "value": "42"}.
final class Recorder {
  /// Opened for appending: each line is one write(2), whole.
  let descriptor: Int32

  init(path: String) throws {
    // The folder may not exist yet (a fresh machine, /tmp cleaned): make it, as `run` does for state.
    if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
      try? FileManager.default.createDirectory(
        atPath: String(path[..<slash]), withIntermediateDirectories: true)
    }
    descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw PluginError.config("record: cannot open '\(path)' for writing")
    }
  }

  deinit { close(descriptor) }

  func append(port: String, value: Value) {
    let line = Array("{\"port\":\"\(port)\",\"value\":\(Self.json(value))}\n".utf8)
    _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
  }

  static func json(_ value: Value) -> String {
    switch value {
    case .trigger: return "\"trigger\""
    case .bool(let flag): return flag ? "true" : "false"
    case .integer(let integer): return String(integer)
    case .number(let number): return String(number)
    case .text(let text): return JSONValue.string(text).description
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
