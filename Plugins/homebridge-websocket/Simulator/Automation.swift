import Foundation
import HomebridgeProtocol
import PatchbayValues

/// A HomeKit automation: when a characteristic changes to a value, run a scene that sets
/// other characteristics. Written `ws_morning.On=true: scene Good Morning: ws_morning.On=false, ws_evening.On=false`.
struct Automation: Sendable, Hashable {
  struct Assignment: Sendable, Hashable, CustomStringConvertible {
    var accessory: String
    var characteristic: String
    var value: JSONValue
    var description: String { "\(accessory).\(characteristic)=\(value.description)" }
  }

  var trigger: Assignment
  var scene: String
  var actions: [Assignment]

  struct Invalid: Error, CustomStringConvertible {
    var description: String
  }

  init(parsing text: String) throws {
    let parts = text.split(separator: ":", maxSplits: 2).map { $0.trimmingCharacters(in: .whitespaces) }
    guard parts.count == 3, parts[1].hasPrefix("scene ") else {
      throw Invalid(
        description: "automation '\(text)': write it as 'ACCESSORY.Characteristic=VALUE: scene NAME: A.C=V, B.C=V'")
    }
    trigger = try Self.assignment(parts[0], in: text)
    scene = String(parts[1].dropFirst("scene ".count)).trimmingCharacters(in: .whitespaces)
    actions = try parts[2].split(separator: ",").map { try Self.assignment(String($0), in: text) }
  }

  static func assignment(_ raw: String, in text: String) throws -> Assignment {
    let trimmed = raw.trimmingCharacters(in: .whitespaces)
    guard let equals = trimmed.lastIndex(of: "="), let dot = trimmed[..<equals].lastIndex(of: ".") else {
      throw Invalid(description: "automation '\(text)': '\(trimmed)' is not ACCESSORY.Characteristic=VALUE")
    }
    let accessory = String(trimmed[..<dot])
    let characteristic = ControlCommand.characteristicName(String(trimmed[trimmed.index(after: dot)..<equals]))
    guard let value = ControlCommand.value(String(trimmed[trimmed.index(after: equals)...])) else {
      throw Invalid(description: "automation '\(text)': value in '\(trimmed)' must be true, false or a number")
    }
    return Assignment(accessory: accessory, characteristic: characteristic, value: value)
  }
}
