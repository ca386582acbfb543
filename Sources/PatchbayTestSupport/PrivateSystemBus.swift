import Foundation
import Synchronization

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
  private let daemon = Mutex<ChildProcess?>(nil)

  public init() throws {
    if let reason = Self.unavailable { throw ChildProcessError("PrivateSystemBus: \(reason)") }
    directory = try TemporaryDirectory("patchbay-bus")
    socket = directory.path + "/bus"
    try directory.write("bus.conf", AvahiUnderTest.busConfig(listen: socket))
    try start()
  }

  /// Starts dbus-daemon (again) and waits until it listens.
  public func start() throws {
    unlink(socket)
    let process = try ChildProcess(
      AvahiUnderTest.dbusDaemon, ["--config-file=\(directory.path)/bus.conf", "--nofork", "--print-address=1"])
    daemon.withLock { $0 = process }
    try process.waitForLine(containing: "unix:path=", within: 60)
  }

  /// Stops dbus-daemon: every client's connection breaks, as when the dbus package is upgraded.
  public func stop() throws {
    if let process = daemon.withLock({ current -> ChildProcess? in
      defer { current = nil }; return current
    }) {
      _ = try process.terminate()
    }
    unlink(socket)
  }

  deinit {
    try? stop()
  }
}
