/// A command from a client to flicd (its own opcode space, see the protocol reference).
public enum CommandPacket: Sendable, Hashable {
  case getInfo
  case createScanner(scanID: UInt32)
  case removeScanner(scanID: UInt32)
  /// `autoDisconnectTime` is 0...511 seconds; 511 means never.
  case createConnectionChannel(
    connectionID: UInt32, address: BluetoothAddress, latencyMode: LatencyMode, autoDisconnectTime: Int16)
  case removeConnectionChannel(connectionID: UInt32)
  case forceDisconnect(address: BluetoothAddress)
  case changeModeParameters(connectionID: UInt32, latencyMode: LatencyMode, autoDisconnectTime: Int16)
  case ping(pingID: UInt32)
  case getButtonInfo(address: BluetoothAddress)
  case createScanWizard(scanWizardID: UInt32)
  case cancelScanWizard(scanWizardID: UInt32)
  case deleteButton(address: BluetoothAddress)
  case createBatteryStatusListener(listenerID: UInt32, address: BluetoothAddress)
  case removeBatteryStatusListener(listenerID: UInt32)
  /// An opcode this codec does not know; the fields are kept as they came.
  case unknown(opcode: UInt8, fields: [UInt8])

  public var opcode: UInt8 {
    switch self {
    case .getInfo: 0
    case .createScanner: 1
    case .removeScanner: 2
    case .createConnectionChannel: 3
    case .removeConnectionChannel: 4
    case .forceDisconnect: 5
    case .changeModeParameters: 6
    case .ping: 7
    case .getButtonInfo: 8
    case .createScanWizard: 9
    case .cancelScanWizard: 10
    case .deleteButton: 11
    case .createBatteryStatusListener: 12
    case .removeBatteryStatusListener: 13
    case .unknown(let opcode, _): opcode
    }
  }

  /// The packet with its u16 length prefix, ready to write to the socket.
  public func encoded() -> [UInt8] {
    var writer = ByteWriter(opcode: opcode)
    switch self {
    case .getInfo: break
    case .createScanner(let id), .removeScanner(let id), .removeConnectionChannel(let id), .ping(let id),
      .createScanWizard(let id), .cancelScanWizard(let id), .removeBatteryStatusListener(let id):
      writer.u32(id)
    case .createConnectionChannel(let id, let address, let latency, let autoDisconnect):
      writer.u32(id)
      writer.address(address)
      writer.u8(latency.rawValue)
      writer.i16(autoDisconnect)
    case .forceDisconnect(let address), .getButtonInfo(let address), .deleteButton(let address):
      writer.address(address)
    case .changeModeParameters(let id, let latency, let autoDisconnect):
      writer.u32(id)
      writer.u8(latency.rawValue)
      writer.i16(autoDisconnect)
    case .createBatteryStatusListener(let id, let address):
      writer.u32(id)
      writer.address(address)
    case .unknown(_, let fields):
      for byte in fields { writer.u8(byte) }
    }
    return writer.framed
  }

  /// Decodes one packet body (opcode and fields, without the length prefix). Extra trailing
  /// bytes are ignored; an unknown opcode becomes `.unknown`.
  public static func decode(_ packet: [UInt8]) throws(FlicProtocolError) -> CommandPacket {
    guard let opcode = packet.first else { throw .emptyPacket }
    var reader = ByteReader(packet, opcode: opcode)
    switch opcode {
    case 0: return .getInfo
    case 1: return .createScanner(scanID: try reader.u32())
    case 2: return .removeScanner(scanID: try reader.u32())
    case 3:
      return .createConnectionChannel(
        connectionID: try reader.u32(), address: try reader.address(),
        latencyMode: try reader.enumeration(LatencyMode.self, "latency_mode"), autoDisconnectTime: try reader.i16())
    case 4: return .removeConnectionChannel(connectionID: try reader.u32())
    case 5: return .forceDisconnect(address: try reader.address())
    case 6:
      return .changeModeParameters(
        connectionID: try reader.u32(), latencyMode: try reader.enumeration(LatencyMode.self, "latency_mode"),
        autoDisconnectTime: try reader.i16())
    case 7: return .ping(pingID: try reader.u32())
    case 8: return .getButtonInfo(address: try reader.address())
    case 9: return .createScanWizard(scanWizardID: try reader.u32())
    case 10: return .cancelScanWizard(scanWizardID: try reader.u32())
    case 11: return .deleteButton(address: try reader.address())
    case 12: return .createBatteryStatusListener(listenerID: try reader.u32(), address: try reader.address())
    case 13: return .removeBatteryStatusListener(listenerID: try reader.u32())
    default: return .unknown(opcode: opcode, fields: Array(packet.dropFirst()))
    }
  }
}
