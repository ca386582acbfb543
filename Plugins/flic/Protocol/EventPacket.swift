/// An event from flicd to a client (its own opcode space, see the protocol reference).
public enum EventPacket: Sendable, Hashable {
  case advertisement(Advertisement)
  case createConnectionChannelResponse(
    connectionID: UInt32, error: CreateConnectionChannelError, status: ConnectionStatus)
  case connectionStatusChanged(connectionID: UInt32, status: ConnectionStatus, disconnectReason: DisconnectReason)
  case connectionChannelRemoved(connectionID: UInt32, reason: RemovedReason)
  case buttonUpOrDown(ButtonPress)
  case buttonClickOrHold(ButtonPress)
  case buttonSingleOrDoubleClick(ButtonPress)
  case buttonSingleOrDoubleClickOrHold(ButtonPress)
  case newVerifiedButton(address: BluetoothAddress)
  case getInfoResponse(DaemonInfo)
  case noSpaceForNewConnection(maxConcurrentlyConnectedButtons: UInt8)
  case gotSpaceForNewConnection(maxConcurrentlyConnectedButtons: UInt8)
  case bluetoothControllerStateChange(state: BluetoothControllerState)
  case pingResponse(pingID: UInt32)
  case getButtonInfoResponse(ButtonInfo)
  case scanWizardFoundPrivateButton(scanWizardID: UInt32)
  case scanWizardFoundPublicButton(scanWizardID: UInt32, address: BluetoothAddress, name: String)
  case scanWizardButtonConnected(scanWizardID: UInt32)
  case scanWizardCompleted(scanWizardID: UInt32, result: ScanWizardResult)
  case buttonDeleted(address: BluetoothAddress, deletedByThisClient: Bool)
  /// `batteryPercentage` is -1 when unknown.
  case batteryStatus(listenerID: UInt32, batteryPercentage: Int8, timestamp: Int64)
  /// An opcode this codec does not know (a newer daemon); clients ignore it.
  case unknown(opcode: UInt8, fields: [UInt8])

  public var opcode: UInt8 {
    switch self {
    case .advertisement: 0
    case .createConnectionChannelResponse: 1
    case .connectionStatusChanged: 2
    case .connectionChannelRemoved: 3
    case .buttonUpOrDown: 4
    case .buttonClickOrHold: 5
    case .buttonSingleOrDoubleClick: 6
    case .buttonSingleOrDoubleClickOrHold: 7
    case .newVerifiedButton: 8
    case .getInfoResponse: 9
    case .noSpaceForNewConnection: 10
    case .gotSpaceForNewConnection: 11
    case .bluetoothControllerStateChange: 12
    case .pingResponse: 13
    case .getButtonInfoResponse: 14
    case .scanWizardFoundPrivateButton: 15
    case .scanWizardFoundPublicButton: 16
    case .scanWizardButtonConnected: 17
    case .scanWizardCompleted: 18
    case .buttonDeleted: 19
    case .batteryStatus: 20
    case .unknown(let opcode, _): opcode
    }
  }

  /// The packet with its u16 length prefix, ready to write to the socket.
  public func encoded() -> [UInt8] {
    var writer = ByteWriter(opcode: opcode)
    switch self {
    case .advertisement(let ad):
      writer.u32(ad.scanID)
      writer.address(ad.address)
      writer.fixedString(ad.name)
      writer.i8(ad.rssi)
      writer.bool(ad.isPrivate)
      writer.bool(ad.alreadyVerified)
      writer.bool(ad.alreadyConnectedToThisDevice)
      writer.bool(ad.alreadyConnectedToOtherDevice)
    case .createConnectionChannelResponse(let id, let error, let status):
      writer.u32(id)
      writer.u8(error.rawValue)
      writer.u8(status.rawValue)
    case .connectionStatusChanged(let id, let status, let reason):
      writer.u32(id)
      writer.u8(status.rawValue)
      writer.u8(reason.rawValue)
    case .connectionChannelRemoved(let id, let reason):
      writer.u32(id)
      writer.u8(reason.rawValue)
    case .buttonUpOrDown(let press), .buttonClickOrHold(let press), .buttonSingleOrDoubleClick(let press),
      .buttonSingleOrDoubleClickOrHold(let press):
      writer.u32(press.connectionID)
      writer.u8(press.clickType.rawValue)
      writer.bool(press.wasQueued)
      writer.u32(press.timeDiff)
    case .newVerifiedButton(let address):
      writer.address(address)
    case .getInfoResponse(let info):
      writer.u8(info.controllerState.rawValue)
      writer.address(info.address)
      writer.u8(info.addressType.rawValue)
      writer.u8(info.maxPendingConnections)
      writer.i16(info.maxConcurrentlyConnectedButtons)
      writer.u8(info.currentPendingConnections)
      writer.bool(info.currentlyNoSpace)
      // The u16 length prefix caps the list; a real daemon never comes near.
      let buttons = info.verifiedButtons.prefix((Int(UInt16.max) - 16) / 6)
      writer.u16(UInt16(buttons.count))
      for address in buttons { writer.address(address) }
    case .noSpaceForNewConnection(let max), .gotSpaceForNewConnection(let max):
      writer.u8(max)
    case .bluetoothControllerStateChange(let state):
      writer.u8(state.rawValue)
    case .pingResponse(let id), .scanWizardFoundPrivateButton(let id), .scanWizardButtonConnected(let id):
      writer.u32(id)
    case .getButtonInfoResponse(let info):
      writer.address(info.address)
      writer.uuid(info.uuid)
      writer.fixedString(info.color)
      writer.fixedString(info.serialNumber)
      writer.u8(info.flicVersion)
      writer.u32(info.firmwareVersion)
    case .scanWizardFoundPublicButton(let id, let address, let name):
      writer.u32(id)
      writer.address(address)
      writer.fixedString(name)
    case .scanWizardCompleted(let id, let result):
      writer.u32(id)
      writer.u8(result.rawValue)
    case .buttonDeleted(let address, let byThisClient):
      writer.address(address)
      writer.bool(byThisClient)
    case .batteryStatus(let id, let percentage, let timestamp):
      writer.u32(id)
      writer.i8(percentage)
      writer.i64(timestamp)
    case .unknown(_, let fields):
      for byte in fields { writer.u8(byte) }
    }
    return writer.framed
  }

  /// Decodes one packet body (opcode and fields, without the length prefix). Extra trailing
  /// bytes are ignored (later daemons may append fields); an unknown opcode becomes `.unknown`.
  public static func decode(_ packet: [UInt8]) throws(FlicProtocolError) -> EventPacket {
    guard let opcode = packet.first else { throw .emptyPacket }
    var r = ByteReader(packet, opcode: opcode)
    switch opcode {
    case 0:
      return .advertisement(
        Advertisement(
          scanID: try r.u32(), address: try r.address(), name: try r.fixedString("name"), rssi: try r.i8(),
          isPrivate: try r.bool(), alreadyVerified: try r.bool(), alreadyConnectedToThisDevice: try r.bool(),
          alreadyConnectedToOtherDevice: try r.bool()))
    case 1:
      return .createConnectionChannelResponse(
        connectionID: try r.u32(), error: try r.enumeration(CreateConnectionChannelError.self, "error"),
        status: try r.enumeration(ConnectionStatus.self, "connection_status"))
    case 2:
      return .connectionStatusChanged(
        connectionID: try r.u32(), status: try r.enumeration(ConnectionStatus.self, "connection_status"),
        disconnectReason: try r.enumeration(DisconnectReason.self, "disconnect_reason"))
    case 3:
      return .connectionChannelRemoved(
        connectionID: try r.u32(), reason: try r.enumeration(RemovedReason.self, "removed_reason"))
    case 4: return .buttonUpOrDown(try press(&r))
    case 5: return .buttonClickOrHold(try press(&r))
    case 6: return .buttonSingleOrDoubleClick(try press(&r))
    case 7: return .buttonSingleOrDoubleClickOrHold(try press(&r))
    case 8: return .newVerifiedButton(address: try r.address())
    case 9:
      let state = try r.enumeration(BluetoothControllerState.self, "controller_state")
      let address = try r.address()
      let addressType = try r.enumeration(BluetoothAddressType.self, "my_addr_type")
      let maxPending = try r.u8()
      let maxConnected = try r.i16()
      let currentPending = try r.u8()
      let noSpace = try r.bool()
      let count = Int(try r.u16())
      // Check the whole list fits before building it, so a lying count costs nothing.
      guard r.remaining >= count * 6 else {
        throw .packetTooShort(opcode: opcode, length: packet.count, needed: 16 + count * 6)
      }
      var buttons: [BluetoothAddress] = []
      buttons.reserveCapacity(count)
      for _ in 0..<count { buttons.append(try r.address()) }
      return .getInfoResponse(
        DaemonInfo(
          controllerState: state, address: address, addressType: addressType, maxPendingConnections: maxPending,
          maxConcurrentlyConnectedButtons: maxConnected, currentPendingConnections: currentPending,
          currentlyNoSpace: noSpace, verifiedButtons: buttons))
    case 10: return .noSpaceForNewConnection(maxConcurrentlyConnectedButtons: try r.u8())
    case 11: return .gotSpaceForNewConnection(maxConcurrentlyConnectedButtons: try r.u8())
    case 12:
      return .bluetoothControllerStateChange(state: try r.enumeration(BluetoothControllerState.self, "state"))
    case 13: return .pingResponse(pingID: try r.u32())
    case 14:
      return .getButtonInfoResponse(
        ButtonInfo(
          address: try r.address(), uuid: try r.uuid(), color: try r.fixedString("color"),
          serialNumber: try r.fixedString("serial_number"), flicVersion: try r.u8(), firmwareVersion: try r.u32()))
    case 15: return .scanWizardFoundPrivateButton(scanWizardID: try r.u32())
    case 16:
      return .scanWizardFoundPublicButton(
        scanWizardID: try r.u32(), address: try r.address(), name: try r.fixedString("name"))
    case 17: return .scanWizardButtonConnected(scanWizardID: try r.u32())
    case 18:
      return .scanWizardCompleted(
        scanWizardID: try r.u32(), result: try r.enumeration(ScanWizardResult.self, "result"))
    case 19: return .buttonDeleted(address: try r.address(), deletedByThisClient: try r.bool())
    case 20: return .batteryStatus(listenerID: try r.u32(), batteryPercentage: try r.i8(), timestamp: try r.i64())
    default: return .unknown(opcode: opcode, fields: Array(packet.dropFirst()))
    }
  }

  private static func press(_ r: inout ByteReader) throws(FlicProtocolError) -> ButtonPress {
    ButtonPress(
      connectionID: try r.u32(), clickType: try r.enumeration(ClickType.self, "click_type"), wasQueued: try r.bool(),
      timeDiff: try r.u32())
  }
}
