import HAP
import PatchbayValues
import Synchronization

/// The accessory side of the tests: a bridge (aid 1) with a Switch (aid 2), a
/// StatelessProgrammableSwitch (aid 3) and a Lightbulb with brightness (aid 4). It records
/// what the server asked of it.
final class TestAccessories: HAPAccessoryDelegate {
  struct Characteristic: Sendable {
    var type: String
    var format: String
    var perms: [String]
    var value: JSONValue
    var minimum: Int?
    var maximum: Int?
  }

  struct Service: Sendable {
    var iid: Int
    var type: String
    var characteristics: [(iid: Int, Characteristic)]
  }

  struct Recorded: Sendable {
    var values: [HAPCharacteristicID: JSONValue] = [:]
    var writes: [(HAPWrite, controller: String)] = []
    var identifies = 0
    var pairingStates: [HAPPairingState] = []
    var failPersisting = false
  }

  static let switchOn = HAPCharacteristicID(aid: 2, iid: 9)
  static let buttonEvent = HAPCharacteristicID(aid: 3, iid: 9)
  static let lightOn = HAPCharacteristicID(aid: 4, iid: 9)
  static let brightness = HAPCharacteristicID(aid: 4, iid: 10)

  let accessories: [(aid: Int, services: [Service])]
  let recorded = Mutex(Recorded())

  init() {
    func information(_ name: String) -> Service {
      Service(
        iid: 1, type: "3E",
        characteristics: [
          (2, Characteristic(type: "14", format: "bool", perms: ["pw"], value: .null)),
          (3, Characteristic(type: "20", format: "string", perms: ["pr"], value: .string("patchbay"))),
          (4, Characteristic(type: "21", format: "string", perms: ["pr"], value: .string("test"))),
          (5, Characteristic(type: "23", format: "string", perms: ["pr"], value: .string(name))),
          (6, Characteristic(type: "30", format: "string", perms: ["pr"], value: .string("SN-\(name)"))),
          (7, Characteristic(type: "52", format: "string", perms: ["pr"], value: .string("1.0.0"))),
        ])
    }
    let on = Characteristic(type: "25", format: "bool", perms: ["pr", "pw", "ev"], value: .bool(false))
    accessories = [
      (
        1,
        [
          information("Bridge"),
          Service(
            iid: 8, type: "A2",
            characteristics: [
              (9, Characteristic(type: "37", format: "string", perms: ["pr"], value: .string("1.1.0")))
            ]),
        ]
      ),
      (2, [information("Switch"), Service(iid: 8, type: "49", characteristics: [(9, on)])]),
      (
        3,
        [
          information("Button"),
          Service(
            iid: 8, type: "89",
            characteristics: [
              (
                9,
                Characteristic(
                  type: "73", format: "uint8", perms: ["pr", "ev"], value: .null, minimum: 0, maximum: 2)
              )
            ]),
        ]
      ),
      (
        4,
        [
          information("Lamp"),
          Service(
            iid: 8, type: "43",
            characteristics: [
              (9, on),
              (
                10,
                Characteristic(
                  type: "8", format: "int", perms: ["pr", "pw", "ev"], value: .integer(50), minimum: 0, maximum: 100)
              ),
            ]),
        ]
      ),
    ]
  }

  func characteristic(_ id: HAPCharacteristicID) -> Characteristic? {
    accessories.first { $0.aid == id.aid }?.services.lazy.flatMap(\.characteristics).first { $0.iid == id.iid }?.1
  }

  func value(_ id: HAPCharacteristicID) -> JSONValue? {
    recorded.withLock { $0.values[id] } ?? characteristic(id)?.value
  }

  func accessoryDatabase() async -> JSONValue {
    .object([
      (
        "accessories",
        .array(
          accessories.map { accessory in
            .object([
              ("aid", .integer(Int64(accessory.aid))),
              (
                "services",
                .array(
                  accessory.services.map { service in
                    .object([
                      ("iid", .integer(Int64(service.iid))), ("type", .string(service.type)),
                      (
                        "characteristics",
                        .array(
                          service.characteristics.map { iid, characteristic in
                            var members: [(String, JSONValue)] = [
                              ("iid", .integer(Int64(iid))), ("type", .string(characteristic.type)),
                              ("format", .string(characteristic.format)),
                              ("perms", .array(characteristic.perms.map(JSONValue.string))),
                            ]
                            if characteristic.perms.contains("pr") {
                              members.append(
                                ("value", value(HAPCharacteristicID(aid: accessory.aid, iid: iid)) ?? .null))
                            }
                            if let minimum = characteristic.minimum {
                              members.append(("minValue", .integer(Int64(minimum))))
                            }
                            if let maximum = characteristic.maximum {
                              members.append(("maxValue", .integer(Int64(maximum))))
                            }
                            return .object(members)
                          })
                      ),
                    ])
                  })
              ),
            ])
          })
      )
    ])
  }

  func readCharacteristics(_ ids: [HAPCharacteristicID], fields: HAPReadFields) async -> [HAPReadResult] {
    ids.map { id in
      guard let characteristic = characteristic(id) else {
        return HAPReadResult(id: id, status: .resourceDoesNotExist, value: nil)
      }
      guard characteristic.perms.contains("pr") else { return HAPReadResult(id: id, status: .writeOnly, value: nil) }
      var extra: [String: JSONValue] = [:]
      if fields.contains(.type) { extra["type"] = .string(characteristic.type) }
      if fields.contains(.perms) { extra["perms"] = .array(characteristic.perms.map(JSONValue.string)) }
      if fields.contains(.meta) { extra["format"] = .string(characteristic.format) }
      return HAPReadResult(id: id, status: .success, value: value(id), fields: extra)
    }
  }

  func writeCharacteristics(_ writes: [HAPWrite], controller: String) async -> [HAPWriteResult] {
    writes.map { write in
      recorded.withLock { $0.writes.append((write, controller)) }
      guard let characteristic = characteristic(write.id) else {
        return HAPWriteResult(id: write.id, status: .resourceDoesNotExist)
      }
      guard characteristic.perms.contains("pw") else { return HAPWriteResult(id: write.id, status: .readOnly) }
      let valid: Bool
      switch characteristic.format {
      case "bool": valid = write.value.boolValue != nil || [0, 1].contains(write.value.integerValue)
      case "int":
        valid =
          write.value.integerValue.map {
            ($0 >= characteristic.minimum ?? .min) && ($0 <= characteristic.maximum ?? .max)
          } ?? false
      default: valid = false
      }
      guard valid else { return HAPWriteResult(id: write.id, status: .invalidValue) }
      if characteristic.type != "14" { recorded.withLock { $0.values[write.id] = write.value } }
      return HAPWriteResult(id: write.id, status: .success, value: write.wantsResponse ? write.value : nil)
    }
  }

  func eventStatus(_ id: HAPCharacteristicID) async -> HAPStatus {
    guard let characteristic = characteristic(id) else { return .resourceDoesNotExist }
    return characteristic.perms.contains("ev") ? .success : .notificationNotSupported
  }

  func identify() async { recorded.withLock { $0.identifies += 1 } }

  struct PersistFailure: Error {}

  func pairingStateChanged(_ state: HAPPairingState) async throws {
    try recorded.withLock {
      if $0.failPersisting { throw PersistFailure() }
      $0.pairingStates.append(state)
    }
  }

  var lastPairingState: HAPPairingState? { recorded.withLock { $0.pairingStates.last } }
  var writes: [(HAPWrite, controller: String)] { recorded.withLock { $0.writes } }
}
