import PatchbayValues

/// What a plugin library says about itself (its descriptor).
public struct PluginInfo: Sendable, Equatable, Codable {
  public var name: String
  public var version: String
  public var description: String
  public var abiMajor: UInt32
  public var abiMinor: UInt32

  public init(name: String, version: String, description: String, abiMajor: UInt32, abiMinor: UInt32) {
    self.name = name
    self.version = version
    self.description = description
    self.abiMajor = abiMajor
    self.abiMinor = abiMinor
  }
}

/// The step of a plugin's life that failed.
public enum LifecycleStage: UInt8, Sendable, Equatable, Codable {
  case load = 1, create, start, stop
  /// The plugin called `fault` (gave up) while running.
  case fault
  /// `retire` (ABI 1.3) of an instance removed from the config.
  case retire

  public var name: String {
    switch self {
    case .load: "load"
    case .create: "create"
    case .start: "start"
    case .stop: "stop"
    case .fault: "fault"
    case .retire: "retire"
    }
  }
}

/// Messages from a plugin-host process to the hub.
public enum HostMessage: Sendable, Equatable {
  case hello(protocolVersion: UInt8, pid: Int32)
  case described(PluginInfo)
  case created(PluginInfo, ports: [PortDescriptor])
  case failed(stage: LifecycleStage, status: Int32, message: String)
  case started
  /// `hops`: those of the input the plugin was receiving when it published (0 otherwise).
  case publish(port: UInt32, value: Value, hops: UInt8 = 0)
  /// level is PB_LOG_*.
  case log(level: UInt8, message: String)
  case heartbeat(sequence: UInt64)
  case stopped
  /// The plugin's `retire` (ABI 1.3) returned PB_OK. (Its refusal, or a plugin without one,
  /// is `failed(stage: .retire, ...)`, PB_ERR_NOT_SUPPORTED for nothing to undo.)
  case retired
  /// How many of the plugin's calls the host has refused so far (bad values, wrong port or
  /// lifecycle state); sent at most once a second when it changed, and once more at stop.
  case refusals(total: UInt64)
  /// The host's back-pressure on the plugin so far: event publishes answered PB_ERR_BUSY, and
  /// publishes (or `wait_for_room` calls) that waited for room; sent like `refusals`.
  case publishPressure(busy: UInt64, waits: UInt64)
  /// How the host confined itself before loading the plugin, sent once after `hello`:
  /// the kernel's Landlock ABI in use (0: none, the host runs unconfined by Landlock), whether
  /// TCP ports and signals are confined, and whether the seccomp filter is in place.
  case confined(landlockABI: UInt8, network: Bool, signals: Bool, seccomp: Bool)
  /// System calls the seccomp filter refused so far (EPERM); sent like `refusals`.
  case refusedCalls(total: UInt64)

  /// Append-only: a new kind takes the next number, older numbers never change.
  enum Tag: UInt8 {
    case hello = 1, described, created, failed, started, publish, log, heartbeat, stopped, refusals
    case publishPressure, confined, refusedCalls, retired
  }

  /// Most ports a plugin may declare.
  public static let maximumPorts = 1024

  public func encode() -> [UInt8] { FrameWriter.frame { write(to: &$0) } }

  /// Calls `body` with the encoded frame in temporary memory (no heap allocation).
  public func withEncoded<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    FrameWriter.withFrame({ write(to: &$0) }, body)
  }

  func write(to writer: inout FrameWriter) {
    writer.u8(WireProtocol.version)
    func header(_ tag: Tag) {
      writer.u8(tag.rawValue)
      writer.u16(0)
    }
    switch self {
    case .hello(let version, let pid):
      header(.hello)
      writer.u8(version)
      writer.u32(UInt32(bitPattern: pid))
    case .described(let info):
      header(.described)
      writer.info(info)
    case .created(let info, let ports):
      header(.created)
      writer.info(info)
      writer.u32(UInt32(ports.count))
      for port in ports {
        writer.string(port.name)
        writer.u8(UInt8(port.direction.rawValue))
        writer.u8(UInt8(port.kind.rawValue))
        writer.u8(UInt8(port.type.rawValue))
        writer.string(port.description)
        // ABI 1.2 attributes: the status role (0: none) and the mirrored input ("": none).
        writer.u8(port.statusRole?.rawValue ?? 0)
        writer.string(port.mirrors ?? "")
      }
    case .failed(let stage, let status, let message):
      header(.failed)
      writer.u8(stage.rawValue)
      writer.u32(UInt32(bitPattern: status))
      writer.string(message)
    case .started:
      header(.started)
    case .publish(let port, let value, let hops):
      header(.publish)
      writer.u32(port)
      writer.u8(hops)
      writer.value(value)
    case .log(let level, let message):
      header(.log)
      writer.u8(level)
      writer.string(message)
    case .heartbeat(let sequence):
      header(.heartbeat)
      writer.u64(sequence)
    case .stopped:
      header(.stopped)
    case .retired:
      header(.retired)
    case .refusals(let total):
      header(.refusals)
      writer.u64(total)
    case .publishPressure(let busy, let waits):
      header(.publishPressure)
      writer.u64(busy)
      writer.u64(waits)
    case .confined(let abi, let network, let signals, let seccomp):
      header(.confined)
      writer.u8(abi)
      writer.u8(network ? 1 : 0)
      writer.u8(signals ? 1 : 0)
      writer.u8(seccomp ? 1 : 0)
    case .refusedCalls(let total):
      header(.refusedCalls)
      writer.u64(total)
    }
  }

  public static func decode(_ frame: [UInt8]) throws(WireError) -> HostMessage {
    try frame.withUnsafeBytes { bytes in Result { () throws(WireError) in try decode(bytes) } }.get()
  }

  /// Decodes a frame where it was received (no copy).
  public static func decode(_ frame: UnsafeRawBufferPointer) throws(WireError) -> HostMessage {
    var reader = try FrameReader(validatingHeaderOf: frame)
    guard let tag = Tag(rawValue: frame[1]) else { throw .unknownMessage(frame[1]) }
    let message: HostMessage
    switch tag {
    case .hello:
      message = .hello(protocolVersion: try reader.u8(), pid: Int32(bitPattern: try reader.u32()))
    case .described:
      message = .described(try reader.info())
    case .created:
      let info = try reader.info()
      let count = Int(try reader.u32())
      guard count <= maximumPorts else { throw .invalid("\(count) ports exceeds \(maximumPorts)") }
      var ports: [PortDescriptor] = []
      for _ in 0..<count {
        let name = try reader.string(maxBytes: 64)
        let direction = try reader.u8()
        let kind = try reader.u8()
        let type = try reader.u8()
        guard let direction = PortDirection(rawValue: UInt32(direction)),
          let kind = PortKind(rawValue: UInt32(kind)), let type = ValueType(rawValue: UInt32(type))
        else { throw .invalid("port '\(name)' has an unknown direction, kind or type") }
        let description = try reader.string(maxBytes: 1024)
        let role = try reader.u8()
        guard role == 0 || PortStatusRole(rawValue: role) != nil else {
          throw .invalid("port '\(name)' has an unknown status role \(role)")
        }
        let mirrors = try reader.string(maxBytes: 64)
        ports.append(
          PortDescriptor(
            name: name, direction: direction, kind: kind, type: type, description: description,
            mirrors: mirrors.isEmpty ? nil : mirrors, statusRole: PortStatusRole(rawValue: role)))
      }
      message = .created(info, ports: ports)
    case .failed:
      let rawStage = try reader.u8()
      guard let stage = LifecycleStage(rawValue: rawStage) else { throw .invalid("unknown stage \(rawStage)") }
      message = .failed(stage: stage, status: Int32(bitPattern: try reader.u32()), message: try reader.string())
    case .started: message = .started
    case .publish:
      let port = try reader.u32()
      let hops = try reader.u8()
      message = .publish(port: port, value: try reader.value(), hops: hops)
    case .log: message = .log(level: try reader.u8(), message: try reader.string())
    case .heartbeat: message = .heartbeat(sequence: try reader.u64())
    case .stopped: message = .stopped
    case .retired: message = .retired
    case .refusals: message = .refusals(total: try reader.u64())
    case .publishPressure: message = .publishPressure(busy: try reader.u64(), waits: try reader.u64())
    case .confined:
      message = .confined(
        landlockABI: try reader.u8(), network: try reader.u8() != 0, signals: try reader.u8() != 0,
        seccomp: try reader.u8() != 0)
    case .refusedCalls: message = .refusedCalls(total: try reader.u64())
    }
    try reader.expectEnd()
    return message
  }
}

extension FrameWriter {
  mutating func info(_ info: PluginInfo) {
    string(info.name)
    string(info.version)
    string(info.description)
    u32(info.abiMajor)
    u32(info.abiMinor)
  }
}

extension FrameReader {
  mutating func info() throws(WireError) -> PluginInfo {
    PluginInfo(
      name: try string(maxBytes: 256), version: try string(maxBytes: 256), description: try string(maxBytes: 4096),
      abiMajor: try u32(), abiMinor: try u32())
  }
}
