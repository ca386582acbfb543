import FlicProtocol

// Compact one-line descriptions for the simulator's output, named as in the protocol
// documentation so a reader can match them against it.

extension EventPacket {
  var logDescription: String {
    switch self {
    case .buttonUpOrDown(let p): "ButtonUpOrDown " + p.logDescription
    case .buttonClickOrHold(let p): "ButtonClickOrHold " + p.logDescription
    case .buttonSingleOrDoubleClick(let p): "ButtonSingleOrDoubleClick " + p.logDescription
    case .buttonSingleOrDoubleClickOrHold(let p): "ButtonSingleOrDoubleClickOrHold " + p.logDescription
    case .createConnectionChannelResponse(let id, let error, let status):
      "CreateConnectionChannelResponse conn=\(id) error=\(error) status=\(status)"
    case .connectionStatusChanged(let id, let status, let reason):
      "ConnectionStatusChanged conn=\(id) status=\(status) reason=\(reason)"
    case .connectionChannelRemoved(let id, let reason): "ConnectionChannelRemoved conn=\(id) reason=\(reason)"
    case .getInfoResponse(let info):
      "GetInfoResponse verified=\(info.verifiedButtons.map(\.description).joined(separator: ","))"
    case .getButtonInfoResponse(let info):
      "GetButtonInfoResponse color=\(info.color) serial=\(info.serialNumber) flic=\(info.flicVersion) firmware=\(info.firmwareVersion)"
    case .pingResponse(let id): "PingResponse id=\(id)"
    case .batteryStatus(let id, let percent, let timestamp):
      "BatteryStatus listener=\(id) percent=\(percent) time=\(timestamp)"
    case .advertisement(let ad): "AdvertisementPacket scan=\(ad.scanID) name=\(ad.name) verified=\(ad.alreadyVerified)"
    case .newVerifiedButton: "NewVerifiedButton"
    case .scanWizardFoundPrivateButton(let id): "ScanWizardFoundPrivateButton wizard=\(id)"
    case .scanWizardFoundPublicButton(let id, _, let name): "ScanWizardFoundPublicButton wizard=\(id) name=\(name)"
    case .scanWizardButtonConnected(let id): "ScanWizardButtonConnected wizard=\(id)"
    case .scanWizardCompleted(let id, let result): "ScanWizardCompleted wizard=\(id) result=\(result)"
    case .buttonDeleted(_, let byThis): "ButtonDeleted by_this_client=\(byThis)"
    case .noSpaceForNewConnection(let max): "NoSpaceForNewConnection max=\(max)"
    case .gotSpaceForNewConnection(let max): "GotSpaceForNewConnection max=\(max)"
    case .bluetoothControllerStateChange(let state): "BluetoothControllerStateChange state=\(state)"
    case .unknown(let opcode, let fields): "Unknown opcode=\(opcode) bytes=\(fields.count)"
    }
  }
}

extension ButtonPress {
  var logDescription: String { "conn=\(connectionID) \(clickType) queued=\(wasQueued) age=\(timeDiff)" }
}

extension CommandPacket {
  var logDescription: String {
    switch self {
    case .getInfo: "GetInfo"
    case .createScanner(let id): "CreateScanner id=\(id)"
    case .removeScanner(let id): "RemoveScanner id=\(id)"
    case .createConnectionChannel(let id, let address, let latency, let auto):
      "CreateConnectionChannel conn=\(id) [\(address)] latency=\(latency) auto_disconnect=\(auto)"
    case .removeConnectionChannel(let id): "RemoveConnectionChannel conn=\(id)"
    case .forceDisconnect(let address): "ForceDisconnect [\(address)]"
    case .changeModeParameters(let id, let latency, let auto):
      "ChangeModeParameters conn=\(id) latency=\(latency) auto_disconnect=\(auto)"
    case .ping(let id): "Ping id=\(id)"
    case .getButtonInfo(let address): "GetButtonInfo [\(address)]"
    case .createScanWizard(let id): "CreateScanWizard id=\(id)"
    case .cancelScanWizard(let id): "CancelScanWizard id=\(id)"
    case .deleteButton(let address): "DeleteButton [\(address)]"
    case .createBatteryStatusListener(let id, let address): "CreateBatteryStatusListener id=\(id) [\(address)]"
    case .removeBatteryStatusListener(let id): "RemoveBatteryStatusListener id=\(id)"
    case .unknown(let opcode, let fields): "Unknown opcode=\(opcode) bytes=\(fields.count)"
    }
  }
}
