import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Small things the CLI got wrong for a real user.
@Suite(.serialized) struct ControlCommandTests {
  @Test func negativeNumbersAreValues() throws {
    let harness = try HubUnderTest.withCounter()
    try harness.start()
    let sent = try harness.cli("send", "counter.set", "-1")
    #expect(sent.status == 0, "\(sent.output)")
    #expect(sent.output.contains("sent -1 to counter.set"), "\(sent.output)")
    let number = try harness.cli("send", "counter.set", "-42")
    #expect(number.status == 0, "\(number.output)")
    let two = try harness.cli("send", "counter.set", "1", "2")
    #expect(two.status != 0)
    #expect(two.output.contains("one value"))
    try harness.stop()
  }

  @Test func aRefusedReloadFailsTheCommandAndSaysWhy() throws {
    let harness = try HubUnderTest.withCounter()
    try harness.start()
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "example-c")
        .route(from: "counter.cont", to: "counter.set"))
    let reload = try harness.cli("reload")
    #expect(reload.status != 0)
    #expect(reload.output.contains("reload refused"), "\(reload.output)")
    #expect(reload.output.contains("count"), "did you mean: \(reload.output)")
    // SIGHUP: refused with a separator before the messages, and an applied reload is logged once.
    harness.process!.signal(SIGHUP)
    try harness.process!.waitForLine(containing: "reload refused; the running hub is unchanged:")
    #expect(!harness.process!.lines.contains { $0.hasSuffix("unchanged:" + harness.configPath) })
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "example-c", ["step": 3]))
    harness.process!.signal(SIGHUP)
    try harness.process!.waitForLine(containing: "reloaded: ")
    try harness.stop()
    #expect(harness.process!.lines.filter { $0.contains("reloaded: ") }.count == 1, "\(harness.process!.output)")
  }

  /// Issue 29.12: a syntax error is reported as one (with line), not as an unreachable hub.
  @Test func reloadOfABrokenFileShowsItsSyntaxError() throws {
    let harness = try HubUnderTest.withCounter()
    try harness.start()
    try harness.writeConfig(
      """
      [instances.counter
      plugin = "example-c"
      """)
    let reload = try harness.cli("reload")
    #expect(reload.status != 0)
    #expect(reload.output.contains("reload refused; the running hub is unchanged"), "\(reload.output)")
    #expect(reload.output.contains("patchbay.toml:"), "\(reload.output)")
    #expect(reload.output.contains("TOML syntax error"), "\(reload.output)")
    #expect(!reload.output.contains("cannot reach"), "\(reload.output)")
    #expect(try harness.instanceStatus("counter")?["phase"] as? String == "running")
    try harness.stop()
  }

  /// Runs the CLI as `nobody` through setpriv, which only root may do: skipped for other users.
  @Test(.enabled(if: getuid() == 0, "setpriv --reuid=nobody needs root"))
  func aUserWithoutPermissionIsToldSo() throws {
    // A socket in a directory only root may enter, reached as user nobody.
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    let hidden = harness.directory.path + "/private"
    try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: true)
    chmod(harness.directory.path, 0o755)
    chmod(hidden, 0o700)
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "example-c"), hubExtra: "")
    // The socket setting comes from the harness; point the CLI at one in the private dir.
    let socket = hidden + "/control.sock"
    let server = socketListening(at: socket)
    defer { close(server) }
    let result = try runProgram(
      "/usr/bin/setpriv",
      [
        "--reuid=nobody", "--regid=nogroup", "--clear-groups", BuildProducts.executable("patchbay"), "status",
        "--socket", socket,
      ])
    #expect(result.status != 0)
    #expect(result.output.contains("permission denied"), "\(result.output)")
    #expect(result.output.contains("join group 'patchbay'"), "\(result.output)")
  }

  func socketListening(at path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    listen(fd, 1)
    return fd
  }
}
