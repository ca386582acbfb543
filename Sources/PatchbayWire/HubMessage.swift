import PatchbayValues

/// What a plugin instance should be: sent by the hub after `hello`.
public struct LoadRequest: Sendable, Equatable {
  public var libraryPath: String
  public var instanceName: String
  /// The instance's own config section, as a JSON object.
  public var configJSON: String
  public var stateDirectory: String
  /// Lowest level forwarded to the hub (PB_LOG_*).
  public var logLevel: UInt8

  public init(libraryPath: String, instanceName: String, configJSON: String, stateDirectory: String, logLevel: UInt8) {
    self.libraryPath = libraryPath
    self.instanceName = instanceName
    self.configJSON = configJSON
    self.stateDirectory = stateDirectory
    self.logLevel = logLevel
  }
}

/// Messages from the hub to a plugin-host process.
public enum HubMessage: Sendable, Equatable {
  case hello(protocolVersion: UInt8)
  /// Only describe the library (for `patchbay plugins`): no create.
  case describe(libraryPath: String)
  /// dlopen, check the ABI, create the instance and report its ports.
  case load(LoadRequest)
  case start
  /// `hops`: the routes the value has passed through (from 1); the host hands it to what the
  /// plugin publishes while it receives this input.
  case input(port: UInt32, value: Value, hops: UInt8 = 1)
  /// Answered with the same sequence number from the plugin context, proving it is not stuck.
  case heartbeat(sequence: UInt64)
  /// stop(), destroy(), then exit 0.
  case stop
  /// Instead of `start`, after `load`: call the plugin's `retire` (ABI 1.3), answer `retired`
  /// or `failed(stage: .retire, ...)`; `stop` then destroys the instance and ends the host.
  case retire

  enum Tag: UInt8 {
    case hello = 1, describe, load, start, input, heartbeat, stop, retire
  }

  public func encode() -> [UInt8] { FrameWriter.frame { write(to: &$0) } }

  /// Calls `body` with the encoded frame in temporary memory: an input costs no heap allocation.
  public func withEncoded<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    FrameWriter.withFrame({ write(to: &$0) }, body)
  }

  /// Calls `body` with the frames of `messages` one after the other in temporary memory and
  /// their lengths (for one `sendmmsg`).
  public static func withEncoded<Result>(
    _ messages: [HubMessage], _ body: (UnsafeRawBufferPointer, UnsafeBufferPointer<Int>) -> Result
  ) -> Result {
    FrameWriter.withFrames(count: messages.count, { messages[$0].write(to: &$1) }, body)
  }

  func write(to writer: inout FrameWriter) {
    writer.u8(WireProtocol.version)
    switch self {
    case .hello(let version):
      writer.u8(Tag.hello.rawValue)
      writer.u16(0)
      writer.u8(version)
    case .describe(let path):
      writer.u8(Tag.describe.rawValue)
      writer.u16(0)
      writer.string(path)
    case .load(let request):
      writer.u8(Tag.load.rawValue)
      writer.u16(0)
      writer.string(request.libraryPath)
      writer.string(request.instanceName)
      writer.string(request.configJSON)
      writer.string(request.stateDirectory)
      writer.u8(request.logLevel)
    case .start:
      writer.u8(Tag.start.rawValue)
      writer.u16(0)
    case .input(let port, let value, let hops):
      Self.writeInput(port: port, value: value, hops: hops, to: &writer)
    case .heartbeat(let sequence):
      writer.u8(Tag.heartbeat.rawValue)
      writer.u16(0)
      writer.u64(sequence)
    case .stop:
      writer.u8(Tag.stop.rawValue)
      writer.u16(0)
    case .retire:
      writer.u8(Tag.retire.rawValue)
      writer.u16(0)
    }
  }

  /// `.input`'s frame after the version byte (`PacketSocket.trySendInput` writes it alone).
  static func writeInput(port: UInt32, value: Value, hops: UInt8, to writer: inout FrameWriter) {
    writer.u8(Tag.input.rawValue)
    writer.u16(0)
    writer.u32(port)
    writer.u8(hops)
    writer.value(value)
  }

  public static func decode(_ frame: [UInt8]) throws(WireError) -> HubMessage {
    try frame.withUnsafeBytes { bytes in Result { () throws(WireError) in try decode(bytes) } }.get()
  }

  /// Decodes a frame where it was received (no copy).
  public static func decode(_ frame: UnsafeRawBufferPointer) throws(WireError) -> HubMessage {
    var reader = try FrameReader(validatingHeaderOf: frame)
    let tagByte = frame[1]
    guard let tag = Tag(rawValue: tagByte) else { throw .unknownMessage(tagByte) }
    let message: HubMessage
    switch tag {
    case .hello: message = .hello(protocolVersion: try reader.u8())
    case .describe: message = .describe(libraryPath: try reader.string())
    case .load:
      message = .load(
        LoadRequest(
          libraryPath: try reader.string(), instanceName: try reader.string(), configJSON: try reader.string(),
          stateDirectory: try reader.string(), logLevel: try reader.u8()))
    case .start: message = .start
    case .input:
      let port = try reader.u32()
      let hops = try reader.u8()
      message = .input(port: port, value: try reader.value(), hops: hops)
    case .heartbeat: message = .heartbeat(sequence: try reader.u64())
    case .stop: message = .stop
    case .retire: message = .retire
    }
    try reader.expectEnd()
    return message
  }
}

extension FrameReader {
  /// Checks size, version and the reserved field; positions the reader after the header.
  public init(validatingHeaderOf frame: UnsafeRawBufferPointer) throws(WireError) {
    guard frame.count <= WireProtocol.maximumFrameBytes else { throw .oversized(frame.count) }
    guard frame.count >= WireProtocol.headerBytes else {
      throw .truncated("\(frame.count) bytes is shorter than the \(WireProtocol.headerBytes)-byte header")
    }
    guard frame[0] == WireProtocol.version else { throw .unknownVersion(frame[0]) }
    guard frame[2] == 0, frame[3] == 0 else { throw .invalid("reserved header bytes are not zero") }
    self.init(frame, offset: WireProtocol.headerBytes)
  }
}
