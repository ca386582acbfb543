import Foundation
import PatchbayHub
import PatchbayValues

/// The JSON shapes of the HTTP API (docs/web.md), built from the control protocol's answers.
enum APIModels {
  struct Status: Encodable {
    var hub: Hub
    var instances: [Instance]
  }

  struct Hub: Encodable {
    var version: String
    var pid: Int32
    var uptimeSeconds: Double
    var protocolVersion: Int?
  }

  struct Instance: Encodable {
    var name: String
    var plugin: String
    var state: String
    var pid: Int32?
    var uptimeSeconds: Double?
    var restarts: Int
    var lastExit: String?
    var failure: String?
    var messagesIn: Int
    var messagesOut: Int
    var queueDepth: Int
    var drops: Int
    var backPressureWaits: Int
    var publishBusy: Int
    var publishWaits: Int
    var refusals: Int
    var peer: String?
    /// The config's `room`, for the household view.
    var room: String?

    init(_ status: InstanceStatus) {
      name = status.name
      plugin = status.plugin
      state = status.phase.rawValue
      pid = status.pid
      uptimeSeconds = status.uptimeSeconds
      restarts = status.restarts
      lastExit = status.lastExit
      failure = status.failure
      messagesIn = status.messagesIn
      messagesOut = status.messagesOut
      queueDepth = status.queueDepth
      drops = status.drops
      backPressureWaits = status.backPressureWaits
      publishBusy = status.publishBusy
      publishWaits = status.publishWaits
      refusals = status.refusals
      peer = status.peer
      room = status.room
    }
  }

  struct Port: Encodable {
    /// `INSTANCE.PORT`.
    var address: String
    var instance: String
    var name: String
    var type: String
    var kind: String
    var direction: String
    var description: String
    /// The input whose device state this output reports (ABI 1.2 `mirrors`).
    var mirrors: String?
    /// The last value seen (nil: none since patchbay-web connected, and none retained). For a
    /// state input, the last value the hub gave it.
    var value: String?
  }

  struct Scene: Encodable {
    var name: String
    var ports: Int
    var activations: Int
  }

  struct Ports: Encodable { var ports: [Port] }
  struct Routes: Encodable {
    var routes: [RouteEdge]
    var inactive: [String]
  }
  struct Scenes: Encodable { var scenes: [Scene] }
  struct HomeKit: Encodable { var bridges: [HomeKitPanel] }
  struct Log: Encodable { var lines: [LogRecord] }
  struct Done: Encodable {
    var ok: Bool
    var message: String?
  }
  struct Session: Encodable {
    var csrf: String
    var csrfHeader: String
    var loginRequired: Bool
  }

  /// `inputs`: what the hub last gave each state input (the `values` answer's `inputs`).
  static func ports(of status: HubStatus, values: [String: String], inputs: [String: String] = [:]) -> [Port] {
    status.instances.flatMap { instance in
      instance.ports.map { port in
        let address = "\(instance.name).\(port.name)"
        let value = port.direction == .input ? inputs[address] ?? values[address] : values[address]
        return Port(
          address: address, instance: instance.name, name: port.name, type: port.type.name, kind: port.kind.name,
          direction: port.direction.name, description: port.description, mirrors: port.mirrors, value: value)
      }
    }
  }
}

/// POST bodies.
struct SendRequest: Decodable {
  var address: String
  /// The value as `patchbay send` takes it; a JSON bool or number is taken as its text.
  var value: String

  enum CodingKeys: String, CodingKey { case address, value }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    address = try container.decode(String.self, forKey: .address)
    if let text = try? container.decode(String.self, forKey: .value) {
      value = text
    } else if let flag = try? container.decode(Bool.self, forKey: .value) {
      value = flag ? "true" : "false"
    } else if let integer = try? container.decode(Int64.self, forKey: .value) {
      value = String(integer)
    } else {
      value = String(try container.decode(Double.self, forKey: .value))
    }
  }
}

struct RestartRequest: Decodable {
  var instance: String
}
