import HomebridgeProtocol
import PatchbayValues

/// A line typed on stdin or sent to the control socket.
enum ControlCommand: Sendable, Hashable {
  /// HomeKit writes a value (a user tapped a tile): sends `set` to the client.
  case homeKitSet(accessory: String, characteristic: String, value: JSONValue)
  /// HomeKit reads a value: answered from the cache at once, and `get` goes to the client,
  /// whose `callback` refreshes the cache for the next read.
  case homeKitGet(accessory: String, characteristic: String)
  /// Homebridge restarts (a reboot, `hb-service restart`): see `HomebridgeServer.restart`.
  case restart
  /// Prints the accessory table.
  case table
  case help

  static let usage = [
    "homekit-set NAME CHARACTERISTIC VALUE   HomeKit writes a value (sends 'set' to the client)",
    "homekit-get NAME CHARACTERISTIC         HomeKit reads (cache answers; sends 'get' to the client)",
    "restart                                 Homebridge restarts: clients dropped, values blank, cache kept",
    "table                                   prints the accessories and their values",
  ]

  struct Invalid: Error, CustomStringConvertible {
    var description: String
  }

  /// Words split on spaces; "double quotes" keep a name with spaces together.
  init(parsing line: String) throws {
    let words = Self.words(line)
    switch (words.first, words.count) {
    case ("homekit-set", 4):
      guard let value = Self.value(words[3]) else {
        throw Invalid(description: "value '\(words[3])' must be true, false or a number")
      }
      self = .homeKitSet(accessory: words[1], characteristic: Self.characteristicName(words[2]), value: value)
    case ("homekit-get", 3):
      self = .homeKitGet(accessory: words[1], characteristic: Self.characteristicName(words[2]))
    case ("restart", 1): self = .restart
    case ("table", 1): self = .table
    case ("help", 1): self = .help
    default:
      throw Invalid(description: "unknown command '\(line)'; commands:\n" + Self.usage.joined(separator: "\n"))
    }
  }

  static func words(_ line: String) -> [String] {
    var words: [String] = []
    var current = ""
    var quoted = false
    var inWord = false
    for character in line {
      if character == "\"" {
        quoted.toggle()
        inWord = true
      } else if character.isWhitespace && !quoted {
        if inWord { words.append(current) }
        current = ""
        inWord = false
      } else {
        current.append(character)
        inWord = true
      }
    }
    if inWord { words.append(current) }
    return words
  }

  /// true, false or a number.
  static func value(_ text: String) -> JSONValue? {
    switch text {
    case "true": return .bool(true)
    case "false": return .bool(false)
    default:
      guard let number = Double(text), number.isFinite else { return nil }
      return .number(number)
    }
  }

  /// Accepts the HAP name (`Brightness`) or the port-style snake name (`brightness`).
  static func characteristicName(_ text: String) -> String {
    for service in ServiceCatalog.services {
      for spec in service.required + service.optional where spec.name == text || spec.snakeName == text {
        return spec.name
      }
    }
    return text
  }
}
