import PatchbayPluginKit

/// Port names: what the hub accepts, `[a-z0-9_.]`, checked here so the error names the key.
enum PortName {
  static func isValid(_ name: String) -> Bool {
    PortDescriptor.isValidName(name) && !name.hasPrefix(".") && !name.hasSuffix(".") && !name.contains("..")
  }

  static func check(_ name: String, key: String, in decoder: Decoder) throws -> String {
    guard isValid(name) else {
      throw decoder.mistake(key, "'\(name)' must be 1 to 64 of a-z, 0-9, _ and . (it names a port)")
    }
    return name
  }
}
