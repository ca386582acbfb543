import PatchbayCore
import PatchbayValues
import Testing

/// ABI 1.2 port attributes on the hub's side: what a plugin host declares is not trusted, and
/// a mirrored input's retained value follows the device (a light merged, field by field).
@Suite struct PortAttributeTrustTests {
  @Test func attributesThatDoNotFitTheirPortAreDropped() {
    var ports = [
      PortDescriptor(name: "lamp.on", direction: .input, kind: .state, type: .bool),
      PortDescriptor(name: "lamp.on.set", direction: .output, kind: .state, type: .bool, mirrors: "lamp.on"),
      PortDescriptor(name: "wrong.type", direction: .output, kind: .state, type: .integer, mirrors: "lamp.on"),
      PortDescriptor(name: "nowhere", direction: .output, kind: .state, type: .bool, mirrors: "missing"),
      PortDescriptor(name: "peer", direction: .output, kind: .state, type: .text, statusRole: .peer),
      PortDescriptor(name: "second.peer", direction: .output, kind: .state, type: .bool, statusRole: .peer),
      PortDescriptor(name: "shown.input", direction: .input, kind: .state, type: .text, statusRole: .shown),
    ]
    let refusals = InstanceSupervisor.dropUnfitAttributes(of: &ports)
    #expect(refusals.count == 4, "\(refusals)")
    #expect(ports.map(\.mirrors) == [nil, "lamp.on", nil, nil, nil, nil, nil])
    #expect(ports.map(\.statusRole) == [nil, nil, nil, nil, .peer, nil, nil])
  }

  @Test func aFollowedLightMergesIntoTheRetainedCommand() {
    let retained = LightCommand(on: false, brightness: 40, colorTemperature: 300)
    let merged = retained.merged(
      with: LightCommand(on: true, color: HSBColor(hue: 120, saturation: 50, brightness: 100)))
    #expect(merged.on == true)
    #expect(merged.brightness == 40)
    #expect(merged.color?.hue == 120)
    // A light shows a color or a color temperature: the newer mode replaces the other.
    #expect(merged.colorTemperature == nil)
  }
}
