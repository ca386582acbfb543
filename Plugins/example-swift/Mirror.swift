import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// example-swift: declares the input ports its config lists, republishes every value it
/// receives on a matching `NAME.out` output, and appends it to a record file. Useful to wire
/// and observe routes, and the reference for writing a plugin with the kit.
///
/// ```toml
/// [instances.probe]
/// plugin = "example-swift"
/// record = "/tmp/probe.jsonl"           # optional
/// ports = [{ name = "level", type = "integer", kind = "state" }]
/// ```
final class Mirror: PatchbayPlugin {
  struct Config: Decodable {
    struct Port: Decodable {
      var name: String
      var type: String
      var kind: String?
    }
    var ports: [Port]
    var record: String?
  }

  let context: PluginContext
  let outputs: [UInt32: OutputPort]
  let recorder: Recorder?

  init(context: PluginContext) throws {
    self.context = context
    let config = try context.config(Config.self)
    var outputs: [UInt32: OutputPort] = [:]
    for (index, port) in config.ports.enumerated() {
      guard let type = ValueType(name: port.type) else {
        throw PluginError.config(
          "ports.\(index).type: unknown type '\(port.type)' (one of \(ValueType.allNames))")
      }
      let kind: PortKind
      switch port.kind ?? "state" {
      case "state": kind = .state
      case "event": kind = .event
      default: throw PluginError.config("ports.\(index).kind must be \"event\" or \"state\"")
      }
      let input = try context.addInput(port.name, type, kind: kind, description: "mirrored to \(port.name).out")
      outputs[input.index] = try context.addOutput(port.name + ".out", type, kind: kind)
    }
    self.outputs = outputs
    recorder = try config.record.map { try Recorder(path: $0) }
  }

  func start() throws {
    context.log(.info, "mirroring \(outputs.count) ports")
  }

  func receive(_ value: Value, on port: InputPort) throws {
    recorder?.append(port: port.name, value: value)
    if let output = outputs[port.index] { context.publish(value, on: output) }
  }
}

extension ValueType {
  init?(name: String) {
    guard let index = Self.names.firstIndex(of: name) else { return nil }
    self = Self.allCases[index]
  }
  static let names = ["trigger", "bool", "integer", "number", "text", "color", "light", "button"]
  static var allNames: String { names.joined(separator: ", ") }
}

@_cdecl("patchbay_plugin_describe")
public func patchbayPluginDescribe() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: Mirror.self, name: "example-swift", version: PatchbayVersion.current,
    description: "Mirrors configured inputs to outputs and records them (Swift plugin kit example)")
}
