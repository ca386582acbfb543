import CPatchbayPlugin

/// A plugin instance written in Swift. The kit turns it into the C ABI of `patchbay/plugin.h`.
///
/// Every method is called in the plugin context: one at a time, never concurrently. Threads
/// the plugin starts itself may call `PluginContext.publish` and `log` at any time between
/// `start()` and the return of `stop()`.
public protocol PatchbayPlugin: AnyObject {
  /// Reads the instance's config and declares ports. Throwing refuses the instance; the
  /// error's description is shown to the user, so say which key is wrong and what is right.
  init(context: PluginContext) throws

  /// Begins work: connect, start threads. Throwing fails the start; the hub retries by policy.
  func start() throws

  /// One input value, already checked against the port's declared type. Throwing logs the
  /// error; the instance keeps running.
  func receive(_ value: Value, on port: InputPort) throws

  /// Ends work: after return, no thread of the plugin may publish.
  func stop()

  /// The instance was removed from the config (ABI 1.3): undo what it left outside the hub
  /// (retained messages, registrations), then return. Called after `init` instead of `start`;
  /// no port may be published to. Throw to have the hub try again at its next start or reload.
  /// The default has nothing to undo.
  func retire() throws
}

extension PatchbayPlugin {
  public func start() throws {}
  public func stop() {}
  public func retire() throws { throw PluginError.nothingToRetire }
}

extension PluginError {
  /// What `retire()` throws when there is nothing to undo (PB_ERR_NOT_SUPPORTED).
  public static let nothingToRetire = PluginError(.notSupported, "nothing to retire")
}

/// An error with a message for the user and the ABI status code it maps to.
public struct PluginError: Error, CustomStringConvertible, Sendable {
  /// A `PB_ERR_*` status. A struct with static members, not an enum, so that codes a later ABI
  /// adds do not break a plugin that switches over them.
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let invalidConfig = Code(rawValue: PB_ERR_INVALID_CONFIG)
    public static let invalidArgument = Code(rawValue: PB_ERR_INVALID_ARGUMENT)
    public static let unknownPort = Code(rawValue: PB_ERR_UNKNOWN_PORT)
    public static let typeMismatch = Code(rawValue: PB_ERR_TYPE_MISMATCH)
    public static let unavailable = Code(rawValue: PB_ERR_UNAVAILABLE)
    public static let noMemory = Code(rawValue: PB_ERR_NO_MEMORY)
    public static let `internal` = Code(rawValue: PB_ERR_INTERNAL)
    public static let notSupported = Code(rawValue: PB_ERR_NOT_SUPPORTED)
    public static let invalidState = Code(rawValue: PB_ERR_INVALID_STATE)
    public static let notFound = Code(rawValue: PB_ERR_NOT_FOUND)
    public static let busy = Code(rawValue: PB_ERR_BUSY)

    public var description: String { "status \(rawValue)" }
  }
  public var code: Code
  public var description: String
  public init(_ code: Code, _ description: String) {
    self.code = code
    self.description = description
  }
  /// A config mistake, named by key.
  public static func config(_ description: String) -> PluginError { PluginError(.invalidConfig, description) }
}
