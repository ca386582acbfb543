import PatchbayTestSupport
import Testing

/// The arrangement the HomeKit end-to-end tests rely on, with child processes only (no Avahi
/// client in this process, so these run in parallel with anything): a server started in the
/// responder namespace and announced there is found by aiohomekit in the peer namespace, and
/// answers at the address aiohomekit found.
@Suite(
  .disabled(if: AvahiUnderTest.unavailable != nil, "\(AvahiUnderTest.unavailable ?? ""): cannot run avahi-daemon"))
struct AvahiUnderTestTests {
  @Test func aControllerInThePeerNamespaceReachesWhatItDiscovered() throws {
    let python = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
    let avahi = try AvahiUnderTest()
    let server = try avahi.startInResponderNamespace(
      "/usr/bin/python3", ["-c", Self.echoServer, "8765"], environment: ["PYTHONUNBUFFERED": "1"])
    defer { _ = try? server.terminate() }
    try server.waitForLine(containing: "listening", within: 60)
    let published = try avahi.publish(
      name: "Namespace Bridge", port: 8765, txt: ["c#=1", "id=0A:0B:0C:0D:0E:0F", "sf=1", "ci=2", "md=m", "pv=1.1"])
    defer { _ = try? published.terminate() }

    let discovered = try avahi.discoverWithAiohomekit(python, deviceID: "0A:0B:0C:0D:0E:0F", statusFlags: 1)
    #expect(discovered.found, "aiohomekit did not find it:\n\(discovered.output)")
    let found = try #require(discovered.last)
    let (executable, arguments) = avahi.inPeerNamespace(
      "/usr/bin/python3", ["-c", Self.echoClient, found.address, String(found.port)])
    let answer = try runProgram(executable, arguments, within: 60)
    #expect(answer.status == 0 && answer.output.contains("echo: hello"), "\(answer.output)")
  }

  @Test func twoPrivateRespondersDoNotSeeEachOther() throws {
    let first = try AvahiUnderTest()
    let second = try AvahiUnderTest()
    let published = try first.publish(name: "Only In First", port: 1, txt: ["id=01:01:01:01:01:01"])
    defer { _ = try? published.terminate() }
    try eventually("the first avahi-daemon lists its service") {
      try first.browse().contains { $0.name == "Only In First" }
    }
    #expect(try !second.browse().contains { $0.name == "Only In First" })
  }

  static let echoServer = """
    import socket, sys
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("0.0.0.0", int(sys.argv[1])))
    server.listen()
    print("listening", flush=True)
    while True:
        connection, _ = server.accept()
        connection.sendall(b"echo: " + connection.recv(100))
        connection.close()
    """

  static let echoClient = """
    import socket, sys
    connection = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30)
    connection.sendall(b"hello")
    print(connection.recv(100).decode())
    """
}
