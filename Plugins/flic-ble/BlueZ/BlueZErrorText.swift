/// What a BlueZ error means to a person (the names are those of doc/org.bluez.*.rst).
public enum BlueZErrorText {
  public static func explain(_ error: SystemBus.CallError) -> String {
    let what: String
    switch error.name {
    case "org.bluez.Error.NotReady": what = "the Bluetooth adapter is not ready (powered off?)"
    case "org.bluez.Error.NotConnected": what = "the button is not connected"
    case "org.bluez.Error.AlreadyConnected": what = "the button is already connected"
    case "org.bluez.Error.InProgress": what = "BlueZ is already doing this"
    case "org.bluez.Error.NotPermitted": what = "BlueZ does not permit this"
    case "org.bluez.Error.NotAuthorized": what = "BlueZ refused: not authorized (the bus policy)"
    case "org.bluez.Error.NotSupported": what = "the adapter or device does not support this"
    case "org.bluez.Error.InvalidArguments": what = "BlueZ refused the arguments"
    case "org.bluez.Error.DoesNotExist": what = "BlueZ does not know this device (out of range?)"
    case "org.bluez.Error.Failed": what = "BlueZ failed"
    case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
      what = "bluetoothd is not running (nobody owns org.bluez on the system bus)"
    case "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod":
      what = "the object is gone (the adapter or the device was removed)"
    case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
      what = "BlueZ did not answer in time"
    case "org.freedesktop.DBus.Error.AccessDenied": what = "the system bus refused access to BlueZ"
    default: what = error.name
    }
    return error.message.isEmpty || what == error.name
      ? "\(what)\(error.message.isEmpty ? "" : ": \(error.message)")"
      : "\(what) (\(error.message))"
  }
}
