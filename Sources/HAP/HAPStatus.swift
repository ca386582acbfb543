/// A characteristic's status in a HAP response (`status` in `/characteristics` answers).
public struct HAPStatus: RawRepresentable, Hashable, Sendable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  public static let success = HAPStatus(rawValue: 0)
  public static let insufficientPrivileges = HAPStatus(rawValue: -70401)
  public static let serviceCommunicationFailure = HAPStatus(rawValue: -70402)
  public static let resourceBusy = HAPStatus(rawValue: -70403)
  public static let readOnly = HAPStatus(rawValue: -70404)
  public static let writeOnly = HAPStatus(rawValue: -70405)
  public static let notificationNotSupported = HAPStatus(rawValue: -70406)
  public static let outOfResources = HAPStatus(rawValue: -70407)
  public static let timedOut = HAPStatus(rawValue: -70408)
  public static let resourceDoesNotExist = HAPStatus(rawValue: -70409)
  public static let invalidValue = HAPStatus(rawValue: -70410)
  public static let insufficientAuthorization = HAPStatus(rawValue: -70411)
}
