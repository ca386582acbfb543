import PatchbayPluginKit

/// One palette color as written in the config: a hue in degrees (at the configured saturation
/// and brightness), or a table `{ hue = 240, saturation = 100, brightness = 80 }`.
struct PaletteEntry: Decodable {
  var hue: Double
  var saturation: Double?
  var brightness: Double?

  private enum CodingKeys: String, CodingKey, CaseIterable {
    case hue, saturation, brightness
  }

  init(from decoder: Decoder) throws {
    if let hue = try? decoder.singleValueContainer().decode(Double.self) {
      self.hue = hue
      return
    }
    try decoder.refuseUnknownKeys(CodingKeys.self)
    let table = try decoder.container(keyedBy: CodingKeys.self)
    hue = try table.decode(Double.self, forKey: .hue)
    saturation = try table.decodeIfPresent(Double.self, forKey: .saturation)
    brightness = try table.decodeIfPresent(Double.self, forKey: .brightness)
  }

  func color(saturation defaultSaturation: Double, brightness defaultBrightness: Double, key: String) throws
    -> HSBColor
  {
    guard (0...360).contains(hue) else { throw PluginError.config("\(key).hue must be 0...360 degrees, not \(hue)") }
    let saturation = saturation ?? defaultSaturation
    guard (0...100).contains(saturation) else {
      throw PluginError.config("\(key).saturation must be 0...100 %, not \(saturation)")
    }
    let brightness = brightness ?? defaultBrightness
    guard (1...100).contains(brightness) else {
      throw PluginError.config("\(key).brightness must be 1...100 %, not \(brightness)")
    }
    return HSBColor(hue: ColorSource.wrap(hue), saturation: saturation, brightness: brightness)
  }
}
