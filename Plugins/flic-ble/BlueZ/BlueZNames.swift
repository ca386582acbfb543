/// BlueZ's D-Bus names (doc/org.bluez.*.rst) and the Flic GATT UUIDs.
public enum BlueZNames {
  public static let service = "org.bluez"
  public static let adapter = "org.bluez.Adapter1"
  public static let device = "org.bluez.Device1"
  public static let gattService = "org.bluez.GattService1"
  public static let characteristic = "org.bluez.GattCharacteristic1"
  public static let objectManager = "org.freedesktop.DBus.ObjectManager"
  public static let properties = "org.freedesktop.DBus.Properties"

  /// Flic 2 and Duo: the service, the host's write characteristic and the button's notify one.
  public static let flicService = "00420000-8f59-4420-870d-84f3b617e493"
  public static let flicWrite = "00420001-8f59-4420-870d-84f3b617e493"
  public static let flicNotify = "00420002-8f59-4420-870d-84f3b617e493"

  /// Flic Twist: its own service; the host writes (without response) to 00c90001, the Twist
  /// notifies on 00c90002.
  public static let twistService = "00c90000-2cbd-4f2a-a725-5ccd960ffb7d"
  public static let twistWrite = "00c90001-2cbd-4f2a-a725-5ccd960ffb7d"
  public static let twistNotify = "00c90002-2cbd-4f2a-a725-5ccd960ffb7d"

  /// Both services, for the discovery filter.
  public static let allFlicServices = [flicService, twistService]

  /// `AA:BB:CC:DD:EE:FF` as BlueZ spells it in a device's object path (`dev_AA_BB_CC_DD_EE_FF`).
  public static func devicePath(adapter: String, address: String) -> String {
    adapter + "/dev_" + address.uppercased().split(separator: ":").joined(separator: "_")
  }
}
