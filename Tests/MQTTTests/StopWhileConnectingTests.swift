import Foundation
import PatchbayTestSupport
import Testing

/// A broker address that takes the TCP handshake nowhere: a listener whose accept queue is
/// full, so a new connect waits in the kernel. Stopping the hub must not wait for it.
@Suite(.serialized) struct StopWhileConnectingTests {
  static let blackhole = #"""
    import socket, sys, time
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    for _ in range(4):
        client = socket.socket()
        client.setblocking(False)
        client.connect_ex(("127.0.0.1", port))
        fillers.append(client)
    time.sleep(0.5)
    print("port", port, flush=True)
    while True:
        time.sleep(60)
    """#

  @Test func stoppingDuringAHangingConnectIsPrompt() throws {
    let directory = try TemporaryDirectory("patchbay-mqtt-blackhole")
    let script = try directory.write("blackhole.py", Self.blackhole)
    let blackhole = try helperProcess("/usr/bin/python3", ["-u", script])
    try blackhole.waitForLine(containing: "port ", within: 30)
    let line = try #require(blackhole.lines.first { $0.hasPrefix("port ") })
    let port = try #require(Int(line.dropFirst(5)))
    let hub = try MQTTHub(
      directory: directory,
      mqtt: """
        host = "127.0.0.1"
        port = \(port)
        """)
    try hub.process.waitForLine(containing: "connecting to 127.0.0.1:\(port)", within: 30)
    // Give the connect time to be under way (it never completes).
    try? eventually("a connected line, which must not come", within: 1) {
      hub.process.output.contains("connected to 127.0.0.1")
    }
    #expect(!hub.process.output.contains("connected to 127.0.0.1"))
    let started = Date()
    try hub.process.terminate(within: 60)
    let took = Date().timeIntervalSince(started)
    print("hub stopped \(String(format: "%.1f", took)) s after SIGTERM while the plugin was connecting")
    #expect(took < 9, "stop waited for the connect (\(took) s)")
    #expect(!hub.process.output.contains("stopped answering heartbeats"))
    try blackhole.terminate(within: 10)
  }
}
