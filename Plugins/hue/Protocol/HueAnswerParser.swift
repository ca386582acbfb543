import PatchbayValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reads the bridge's JSON answers. Every byte from a bridge is untrusted: anything that is
/// not the expected shape becomes a `HueParseError`, never a crash.
public enum HueAnswerParser {
  /// Longest answer accepted (a bridge with 63 lights answers in well under this).
  public static let maximumBytes = 4 * 1024 * 1024

  /// An answer to PUT or POST: an array of success and error entries.
  public static func results(_ data: Data) throws(HueParseError) -> [HueResult] {
    let json = try parse(data)
    guard let entries = json.arrayValue else {
      throw .unexpectedShape("expected an array of success/error entries, got \(kind(json))")
    }
    var results: [HueResult] = []
    for entry in entries {
      if let error = apiError(entry) {
        results.append(.failure(error))
      } else if let success = entry["success"]?.objectValue {
        for (address, value) in success.sorted(by: { $0.key < $1.key }) {
          results.append(.success(address: address, value: value))
        }
      } else {
        throw .unexpectedShape("an entry is neither success nor error: \(excerpt(entry.text))")
      }
    }
    return results
  }

  /// `GET /lights`: an object of light id to light. Lights with a broken entry are skipped
  /// (one odd bulb must not hide the others); error entries throw `bridgeErrors`.
  public static func lights(_ data: Data) throws(HueParseError) -> [String: HueLight] {
    let members = try resourceTable(data)
    var lights: [String: HueLight] = [:]
    for (id, entry) in members {
      if let light = light(entry) { lights[id] = light }
    }
    return lights
  }

  /// `GET /groups`: an object of group id to group (group 0 is not listed by real bridges).
  public static func groups(_ data: Data) throws(HueParseError) -> [String: HueGroup] {
    let members = try resourceTable(data)
    var groups: [String: HueGroup] = [:]
    for (id, entry) in members {
      guard let name = entry["name"]?.stringValue, let ids = entry["lights"]?.arrayValue else { continue }
      let lights = ids.compactMap(\.stringValue)
      guard lights.count == ids.count else { continue }
      groups[id] = HueGroup(
        name: name, type: entry["type"]?.stringValue ?? "LightGroup", lights: lights,
        anyOn: entry["state"]?["any_on"]?.boolValue ?? false, allOn: entry["state"]?["all_on"]?.boolValue ?? false)
    }
    return groups
  }

  /// A light object; nil when `name` or `state.on` is missing or a field has the wrong type.
  public static func light(_ entry: JSONValue) -> HueLight? {
    guard let name = entry["name"]?.stringValue, let state = entry["state"], state.objectValue != nil,
      let on = state["on"]?.boolValue
    else { return nil }
    var fields: [String: Int] = [:]
    for key in ["bri", "hue", "sat", "ct"] {
      guard let value = state[key] else { continue }
      guard let integer = value.integerValue else { return nil }
      fields[key] = integer
    }
    let mode = state["colormode"]?.stringValue.flatMap(HueColorMode.init(rawValue:))
    return HueLight(
      name: name, type: entry["type"]?.stringValue ?? "Extended color light",
      state: HueLightState(
        on: on, bri: fields["bri"], hue: fields["hue"], sat: fields["sat"], ct: fields["ct"], colorMode: mode,
        reachable: state["reachable"]?.boolValue ?? true))
  }

  static func resourceTable(_ data: Data) throws(HueParseError) -> [String: JSONValue] {
    let json = try parse(data)
    if let entries = json.arrayValue {
      let errors = entries.compactMap(apiError)
      throw errors.isEmpty ? .unexpectedShape("expected an object, got an array") : .bridgeErrors(errors)
    }
    guard let members = json.objectValue else { throw .unexpectedShape("expected an object, got \(kind(json))") }
    return members
  }

  static func apiError(_ entry: JSONValue) -> HueAPIError? {
    guard let error = entry["error"] else { return nil }
    return HueAPIError(
      type: error["type"]?.integerValue ?? 0, address: error["address"]?.stringValue ?? "",
      detail: error["description"]?.stringValue ?? "")
  }

  static func parse(_ data: Data) throws(HueParseError) -> JSONValue {
    guard data.count <= maximumBytes else { throw .unexpectedShape("answer of \(data.count) bytes is too long") }
    guard let json = JSONValue(data: data) else {
      throw .notJSON(excerpt: excerpt(String(decoding: data.prefix(120), as: UTF8.self)))
    }
    return json
  }

  static func kind(_ json: JSONValue) -> String {
    switch json {
    case .null: "null"
    case .bool: "a boolean"
    case .integer, .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  static func excerpt(_ text: String) -> String {
    let flat = text.replacing("\n", with: " ")
    return flat.count > 80 ? String(flat.prefix(80)) + "..." : flat
  }
}
