import HomeKitControllerPlugin
import HomeKitControllerProtocol
import PatchbayValues
import Testing

/// How an accessory database becomes ports: services of a kind of their own, and every other
/// readable characteristic as a typed output, named from HAP's type, else its description.
struct ServiceLayoutTests {
  static let database = JSONValue.parse(
    """
    {"accessories": [{"aid": 1, "services": [
      {"type": "3E", "iid": 1, "characteristics": [
        {"type": "23", "iid": 2, "perms": ["pr"], "format": "string", "value": "Porch"}]},
      {"type": "0000008C-0000-1000-8000-0026BB765291", "iid": 8, "characteristics": [
        {"type": "6D", "iid": 9, "perms": ["pr", "ev"], "format": "uint8", "value": 0},
        {"type": "7C", "iid": 10, "perms": ["pr", "pw", "ev"], "format": "uint8", "value": 0},
        {"type": "23", "iid": 11, "perms": ["pr"], "format": "string", "value": "Blind"}]},
      {"type": "E863F007-079E-45AF-8B63-A4CD3D5BB2B1", "iid": 20, "characteristics": [
        {"type": "E863F10D-079E-45AF-8B63-A4CD3D5BB2B1", "iid": 21, "perms": ["pr"], "format": "float",
         "description": "TotalConsumption", "value": 1.5},
        {"type": "E863F112-079E-45AF-8B63-A4CD3D5BB2B1", "iid": 22, "perms": ["pr", "ev"], "format": "tlv8"},
        {"type": "E863F113-079E-45AF-8B63-A4CD3D5BB2B1", "iid": 23, "perms": ["pw"], "format": "bool"}]},
      {"type": "43", "iid": 30, "characteristics": [
        {"type": "25", "iid": 31, "perms": ["pr", "pw", "ev"], "format": "bool", "value": true}]}
    ]}]}
    """)!

  @Test func otherServicesBecomeTypedReadings() throws {
    let services = ServiceLayout.services(in: Self.database)
    #expect(services.map(\.name) == ["porch_window_covering", "porch_service_e863f007", "porch_light"])
    let covering = try #require(services.first)
    #expect(covering.kind == .other)
    #expect(covering.readings.map(\.name) == ["current_position", "target_position"])
    #expect(covering.readings.map(\.valueType) == [.integer, .integer])
    // Eve's consumption: named from its description, read on connect only (no "ev").
    let eve = services[1]
    #expect(eve.readings.map(\.name) == ["total_consumption"])
    #expect(eve.readings.map(\.valueType) == [.number])
    #expect(eve.subscribed.isEmpty && eve.ids.count == 1)
    #expect(services[2].kind == .light)
  }
}
