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
}

extension PatchbayPlugin {
  public func start() throws {}
  public func stop() {}
}

/// An error with a message for the user and the ABI status code it maps to.
public struct PluginError: Error, CustomStringConvertible, Sendable {
  public enum Code: Int32, Sendable {
    case invalidConfig = -1
    case invalidArgument = -2
    case unavailable = -5
    case `internal` = -7
    case notSupported = -8
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
