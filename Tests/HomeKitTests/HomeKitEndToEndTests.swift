import ChildProcesses
import Foundation
import PatchbayTestSupport
import PatchbayValues
import Synchronization
import Testing

/// The whole bedside path with a real controller: a flicd simulator -> the flic plugin -> a
/// route -> the homekit plugin (its own process under `patchbay run`) -> HAP -> aiohomekit, and
/// back: aiohomekit's writes arrive on the instance's output ports (recorded by a probe).
@Suite(.serialized) struct HomeKitEndToEndTests {
  let hub: HubUnderTest
  let bedside = "80:e4:da:71:b6:8e"
  /// The bridge's port, held for it (the sandbox grants a homekit instance its configured port).
  let reservation: PortReservation

  init() throws {
    hub = try HubUnderTest("patchbay-homekit", plugins: ["homekit", "flic", "example-swift"])
    reservation = try PortReservation()
  }

  var probePath: String { hub.path + "/probe.jsonl" }
  var bridgeState: String { hub.stateDirectory + "/instances/homekit" }

  func startHub(flicdPort: Int) throws {
    try hub.writeConfig(
      HubTOML()
        .instance("buttons", plugin: "flic", ["port": .integer(flicdPort), "click_events": "single_double_hold"])
        .arrayTable("instances.buttons.buttons", ["name": "bedside", "address": .string(bedside)])
        .instance("homekit", plugin: "homekit", ["name": "Bedroom", "port": .integer(reservation.port)])
        .accessory("Bedside button", service: "programmable_switch")
        .accessory("Lamp", service: "lightbulb")
        .accessory("Heater", service: "switch")
        .accessory("Front door", service: "lock")
        .probe(
          record: probePath,
          ports: [.state("heater_on", "bool"), .event("lamp_light", "light"), .state("lock_target", "integer")]
        )
        .routes([
          "buttons.bedside.button": "homekit.bedside_button.button", "homekit.heater.on.set": "probe.heater_on",
          "homekit.lamp.light.set": "probe.lamp_light", "homekit.front_door.lock_target_state.set": "probe.lock_target",
        ]))
    try hub.start()
    try hub.waitUntilRunning("homekit", "buttons", "probe")
  }

  /// The port the bridge logged it listens on (the latest start).
  func bridgePort() throws -> Int {
    var port: Int?
    try eventually("the bridge's port in the log:\n\(hub.log)") {
      port = hub.log.split(separator: "\n").last { $0.contains("HomeKit bridge 'Bedroom'") && $0.contains(" on port ") }
        .flatMap { line in
          line.range(of: " on port ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
        }
      return port != nil
    }
    return port!
  }

  func identity() throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: bridgeState + "/identity.json"))
    return try JSONSerialization.jsonObject(with: data) as! [String: Any]
  }

  func recorded() -> [String] {
    ((try? String(contentsOfFile: probePath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// aid of the accessory named `name` and the iid of its characteristic of `type` (short form).
  static func id(_ accessories: [[String: Any]], name: String, type: String) -> [Int]? {
    for accessory in accessories {
      let services = accessory["services"] as? [[String: Any]] ?? []
      let characteristics = services.flatMap { $0["characteristics"] as? [[String: Any]] ?? [] }
      guard characteristics.contains(where: { Self.short($0["type"]) == "23" && $0["value"] as? String == name })
      else { continue }
      for characteristic in characteristics where Self.short(characteristic["type"]) == type {
        return [accessory["aid"] as! Int, characteristic["iid"] as! Int]
      }
    }
    return nil
  }

  /// "00000073-0000-1000-8000-0026BB765291" or "73" -> "73".
  static func short(_ type: Any?) -> String {
    let text = (type as? String ?? "").uppercased()
    guard text.hasSuffix("-0000-1000-8000-0026BB765291") else { return text }
    let head = text.prefix(8).drop { $0 == "0" }
    return head.isEmpty ? "0" : String(head)
  }

  /// Every (aid.iid -> iid-level dictionary) of the accessory database, for comparing ids.
  static func ids(_ accessories: [[String: Any]]) -> [String] {
    accessories.flatMap { accessory in
      (accessory["services"] as? [[String: Any]] ?? []).flatMap { service in
        (service["characteristics"] as? [[String: Any]] ?? []).map {
          "\(accessory["aid"]!).\($0["iid"]!) \(short($0["type"]))"
        }
      }
    }.sorted()
  }

  @Test func pairPressWriteEventAndRestartKeepsPairingAndIds() throws {
    let simulator = try SimulatorUnderTest(
      .flicd, directory: hub.directory, arguments: ["--button", "\(bedside)=bedside"])
    try startHub(flicdPort: simulator.port)
    let port = try bridgePort()
    #expect(port == reservation.port)
    let code = try #require(try identity()["setup_code"] as? String)

    let controller = try AiohomekitController(port: port)
    let pairing = try controller.send(["cmd": "pair", "pin": code]).foundation
    let accessories = try #require(try controller.send(["cmd": "accessories"]).foundation as? [[String: Any]])
    #expect(accessories.count == 5)
    // `patchbay status` says it is paired (before: the setup code).
    try eventually("status shows the pairing: \((try? hub.cli("status").output) ?? "")") {
      try hub.cli("status").output.contains("paired with 1 controller")
    }
    let button = try #require(Self.id(accessories, name: "Bedside button", type: "73"))
    let lampOn = try #require(Self.id(accessories, name: "Lamp", type: "25"))
    let heaterOn = try #require(Self.id(accessories, name: "Heater", type: "25"))
    #expect(button[0] == 2 && lampOn[0] == 3 && heaterOn[0] == 4)
    #expect(try controller.send(["cmd": "subscribe", "ids": [button, lampOn]]).objectValue != nil)

    // Flic presses arrive as ProgrammableSwitchEvent 0, 1, 2, once each.
    try simulator.control("wait-channel \(bedside) 60")
    let key = "\(button[0]).\(button[1])"
    for (gesture, count) in [("single", 1), ("double", 2), ("hold", 3)] {
      try simulator.control("press \(bedside) \(gesture)")
      try eventually("\(count) button events; events: \(controller.events)\nhub:\n\(hub.log)") {
        controller.values(of: key).count == count
      }
    }
    #expect(controller.values(of: key) == [.integer(0), .integer(1), .integer(2)])

    // A controller's write -> the instance's output port (routed to the probe).
    try controller.send(["cmd": "put", "values": [[heaterOn[0], heaterOn[1], true]]])
    try eventually("heater on recorded: \(recorded())") {
      recorded().contains(#"{"port":"heater_on","value":true}"#)
    }
    try controller.send(["cmd": "put", "values": [[lampOn[0], lampOn[1], true]]])
    try eventually("lamp light recorded: \(recorded())") {
      recorded().contains(#"{"port":"lamp_light","value":{"on":true}}"#)
    }
    // An invalid write: -70410, and the bridge keeps running.
    let brightness = try #require(Self.id(accessories, name: "Lamp", type: "8"))
    let refused = try controller.send(["cmd": "put", "values": [[brightness[0], brightness[1], 150]]])
    #expect("\(refused)".contains("-70410"), "\(refused)")

    // The lock's target takes only a timed write: a plain one gets -70410, one inside /prepare's ttl lands.
    let lockTarget = try #require(Self.id(accessories, name: "Front door", type: "1E"))
    let plain = try controller.send(["cmd": "put", "values": [[lockTarget[0], lockTarget[1], 1]]])
    #expect("\(plain)".contains("-70410"), "\(plain)")
    try controller.send(["cmd": "prepare", "body": ["ttl": 3_600_000, "pid": 4242]])
    try controller.send([
      "cmd": "put_raw",
      "body": ["characteristics": [["aid": lockTarget[0], "iid": lockTarget[1], "value": 1]], "pid": 4242],
    ])
    try eventually("lock target recorded: \(recorded())") {
      recorded().contains(#"{"port":"lock_target","value":1}"#)
    }

    // A hub value -> an event at the controller.
    try hub.send("homekit.lamp.on", "false")
    let lampKey = "\(lampOn[0]).\(lampOn[1])"
    try eventually("the lamp's event; events: \(controller.events)") {
      controller.values(of: lampKey).contains(.bool(false)) || controller.values(of: lampKey).contains(.integer(0))
    }

    // Restart the hub (and so the plugin): the stored pairing still verifies, ids, c# and port stay.
    let before = Self.ids(accessories)
    let configNumber = try Self.configNumber(bridgeState)
    try controller.send(["cmd": "close"])
    #expect(try hub.stop() == 0)
    try startHub(flicdPort: simulator.port)
    #expect(try bridgePort() == port)
    let again = try AiohomekitController(port: port)
    try again.send(["cmd": "load", "data": pairing])
    let reloaded = try #require(try again.send(["cmd": "accessories"]).foundation as? [[String: Any]])
    #expect(Self.ids(reloaded) == before)
    #expect(try Self.configNumber(bridgeState) == configNumber)
    // What the controller wrote before the restart is what it reads after it (the .set output
    // mirrors the input: the hub gives the plugin that value back, never the older one).
    var heater: JSONValue?
    try eventually("the heater still on after the restart: \(heater?.description ?? "")\nhub:\n\(hub.log)") {
      heater = try again.send(["cmd": "get", "ids": [heaterOn]])["\(heaterOn[0]).\(heaterOn[1])", "value"]
      return heater == .bool(true) || heater == .integer(1)
    }
    print("aiohomekit transcript:\n\(controller.transcript)\n\(again.transcript)")
  }

  static func configNumber(_ directory: String) throws -> Int {
    let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/accessory-ids.json"))
    let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    return object["configNumber"] as! Int
  }
}
