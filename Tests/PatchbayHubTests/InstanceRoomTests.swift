import PatchbayValues
import Testing

@testable import PatchbayCore

/// `room = "..."` on an instance: the hub's key (not the plugin's), checked, and not part of what
/// restarts an instance on reload.
@Suite struct InstanceRoomTests {
  func instance(_ toml: String) -> (InstanceSpec?, [ConfigDiagnostic]) {
    var diagnostics: [ConfigDiagnostic] = []
    guard case .success(let tree) = TOMLDocument.parse(toml, file: "rooms.toml"),
      case .object(let instances)? = tree["instances"], let first = instances.first
    else { return (nil, diagnostics) }
    return (ConfigLoader().parseInstance(name: first.0, first.1, file: "rooms.toml", &diagnostics), diagnostics)
  }

  @Test func roomIsTheHubsKeyAndLeavesIdentityAlone() throws {
    let (spec, diagnostics) = instance(
      """
      [instances.lamp]
      plugin = "hue"
      room = "Bedroom"
      bridge = "192.168.1.20"
      """)
    #expect(diagnostics.isEmpty, "\(diagnostics)")
    let lamp = try #require(spec)
    #expect(lamp.room == "Bedroom")
    #expect(lamp.pluginConfig.description.contains("room") == false, "\(lamp.pluginConfig)")
    var moved = lamp
    moved.room = "Hall"
    #expect(moved.identity == lamp.identity)
  }

  @Test func aWrongRoomNamesFileKeyAndWhatWouldBeRight() {
    for bad in ["room = 3", #"room = """#, #"room = "a\u0007b""#, "room = \"\(String(repeating: "x", count: 65))\""] {
      let (spec, diagnostics) = instance("[instances.lamp]\nplugin = \"hue\"\n\(bad)\n")
      #expect(spec == nil, "\(bad)")
      let diagnostic = diagnostics.first
      #expect(diagnostic?.file == "rooms.toml")
      #expect(diagnostic?.key == "instances.lamp.room", "\(bad): \(diagnostics)")
      #expect(diagnostic?.message.contains(#"like "Bedroom""#) == true, "\(bad): \(diagnostics)")
    }
  }
}
