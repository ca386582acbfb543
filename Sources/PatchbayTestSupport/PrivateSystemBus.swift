import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A D-Bus system bus of a test's own: `dbus-daemon` on a socket in a temporary folder, with
/// the same permissive system-bus config as `AvahiUnderTest`'s (anyone may own any name).
/// Programs reach it through `environment` (`DBUS_SYSTEM_BUS_ADDRESS`); no network namespace,
/// as nothing on it needs a link.
public final class PrivateSystemBus: Sendable {
  public static let unavailable: String? =
    FileManager.default.isExecutableFile(atPath: AvahiUnderTest.dbusDaemon)
    ? nil : "needs \(AvahiUnderTest.dbusDaemon) (package dbus)"

  public let directory: TemporaryDirectory
  public let socket: String
  public var address: String { "unix:path=" + socket }
  public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }
  private let daemon: ChildProcess

  public init() throws {
    if let reason = Self.unavailable { throw ChildProcessError("PrivateSystemBus: \(reason)") }
    directory = try TemporaryDirectory("patchbay-bus")
    socket = directory.path + "/bus"
    try directory.write("bus.conf", AvahiUnderTest.busConfig(listen: socket))
    daemon = try ChildProcess(
      AvahiUnderTest.dbusDaemon, ["--config-file=\(directory.path)/bus.conf", "--nofork", "--print-address=1"])
    try daemon.waitForLine(containing: "unix:path=", within: 60)
  }

  deinit {
    _ = try? daemon.terminate()
    unlink(socket)
  }
}
