/// The accessory category (TXT `ci`, and in the QR payload): the icon Apple Home shows.
public enum HAPCategory: Int, Sendable {
  case other = 1, bridge = 2, fan = 3, garageDoorOpener = 4, lightbulb = 5, doorLock = 6, outlet = 7
  case `switch` = 8, sensor = 10, programmableSwitch = 15
}
