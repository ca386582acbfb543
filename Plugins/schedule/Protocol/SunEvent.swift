/// The sun events a trigger can follow, with the altitude of the sun's centre that defines
/// each: sunrise and sunset at -0.833° (refraction and the sun's radius), civil dawn and dusk
/// at -6°.
public enum SunEvent: String, Sendable, CaseIterable {
  case sunrise, sunset, dawn, dusk

  public var altitude: Double {
    switch self {
    case .sunrise, .sunset: -0.833
    case .dawn, .dusk: -6
    }
  }

  public var crossing: SolarCalculator.Crossing {
    switch self {
    case .sunrise, .dawn: .rising
    case .sunset, .dusk: .setting
    }
  }
}
