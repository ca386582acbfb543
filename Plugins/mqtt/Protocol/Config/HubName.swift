/// Hub and instance names as topic levels: `[a-z0-9_-]`, so they never carry a wildcard or slash.
enum HubName {
  static func check(_ name: String, key: String, in decoder: Decoder) throws -> String {
    guard !name.isEmpty, name.utf8.count <= 64,
      name.unicodeScalars.allSatisfy({
        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
      })
    else {
      throw decoder.mistake(key, "'\(name)' must be 1 to 64 of a-z, 0-9, _ and - (it is a topic level)")
    }
    return name
  }
}
