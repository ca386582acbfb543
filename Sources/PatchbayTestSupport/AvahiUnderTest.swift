import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A private mDNS world for a test: a D-Bus system bus of its own (`dbus-daemon` with a config
/// in a temporary folder) and an `avahi-daemon` on it, in a network namespace of its own, joined
/// by a veth pair to a second namespace where the test's controllers (aiohomekit, python
/// zeroconf) run as another host on the link would. Two tests, or the machine's own avahi,
/// never see each other's announcements.
///
/// ```
///  test process ──D-Bus (unix:path=DIR/bus)──> avahi-daemon   [responder namespace, 198.18.0.1]
///                                                  │ veth (multicast)
///                                              aiohomekit    [peer namespace, 198.18.0.2]
/// ```
/// Programs that talk to avahi-daemon (an advertiser, `avahi-browse`, `avahi-publish`) need only
/// `environment` (`DBUS_SYSTEM_BUS_ADDRESS`). A server whose advertised address controllers
/// connect to (a HomeKit bridge) must listen in the responder namespace: start it through
/// `inResponderNamespace`. libdbus reads the bus address once per process, so a test that uses
/// libavahi-client *in its own process* passes `busSocket: AvahiUnderTest.inProcessBusSocket`
/// and runs serialized with every other such test.
///
/// Needs root (`ip netns`, a tmpfs over /run/avahi-daemon for avahi's fixed pid file) and the
/// test group's packages (dbus, avahi-daemon, avahi-utils, iproute2).
public final class AvahiUnderTest: Sendable {
  /// Why these tests cannot run here, or nil when they can.
  public static let unavailable: String? = {
    guard getuid() == 0 else { return "needs root (ip netns, mounts) for a private avahi-daemon" }
    for program in [ip, dbusDaemon, avahiDaemon, avahiBrowse, avahiPublish]
    where !FileManager.default.isExecutableFile(atPath: program) {
      return "needs \(program) (packages iproute2, dbus, avahi-daemon, avahi-utils)"
    }
    return nil
  }()

  static let ip = "/usr/sbin/ip"
  static let dbusDaemon = "/usr/bin/dbus-daemon"
  static let avahiDaemon = "/usr/sbin/avahi-daemon"
  public static let avahiBrowse = "/usr/bin/avahi-browse"
  public static let avahiPublish = "/usr/bin/avahi-publish"

  /// The bus socket for tests that use libavahi-client in the test process itself: the first
  /// use sets `DBUS_SYSTEM_BUS_ADDRESS` for the whole process (libdbus reads it once, at the
  /// first connection). The folder is this process's own; one bus at a time may listen there.
  public static let inProcessBusSocket: String = {
    let folder = "/tmp/patchbay-avahi-bus-\(getpid())"
    mkdir(folder, 0o755)
    let socket = folder + "/bus"
    setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=" + socket, 1)
    // The folder goes when the test process exits (each instance removes its socket).
    atexit {
      let folder = "/tmp/patchbay-avahi-bus-\(getpid())"
      unlink(folder + "/bus")
      rmdir(folder)
    }
    return socket
  }()

  public let directory: TemporaryDirectory
  public let busSocket: String
  public var busAddress: String { "unix:path=" + busSocket }
  /// What a program talking to this avahi-daemon needs in its environment.
  public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": busAddress] }
  /// The namespace of avahi-daemon (and of servers it advertises), and that of the controllers.
  public let responderNamespace: String
  public let peerNamespace: String
  public let responderLink: String
  public let responderAddress = "198.18.0.1"
  public let peerAddress = "198.18.0.2"
  /// The host name avahi-daemon announces (`HOSTNAME.local`).
  public let hostName: String

  private let bus = Mutex<ChildProcess?>(nil)
  private let responder = Mutex<ChildProcess?>(nil)

  /// Makes the namespaces and starts the bus, and avahi-daemon unless `startResponder` is false
  /// (a test of what happens before a responder appears starts it later).
  public init(busSocket: String? = nil, startResponder: Bool = true) throws {
    if let reason = Self.unavailable { throw ChildProcessError("AvahiUnderTest: \(reason)") }
    directory = try TemporaryDirectory("patchbay-avahi")
    self.busSocket = busSocket ?? directory.path + "/bus"
    let tag = String(UInt32(getpid()) % 10_000) + "x" + String(Int.random(in: 0..<100_000))
    responderNamespace = "pbavahi\(tag)"
    peerNamespace = "pbpeer\(tag)"
    responderLink = "pbr\(tag)"
    let peerLink = "pbp\(tag)"
    hostName = "pbavahi\(tag)"
    try directory.write("bus.conf", Self.busConfig(listen: self.busSocket))
    try directory.write("avahi-daemon.conf", Self.avahiConfig(hostName: hostName, interface: responderLink))
    unlink(self.busSocket)
    try Self.run(["netns", "add", responderNamespace])
    do {
      try Self.run(["netns", "add", peerNamespace])
      try Self.run(["link", "add", responderLink, "type", "veth", "peer", "name", peerLink])
      try Self.run(["link", "set", responderLink, "netns", responderNamespace])
      try Self.run(["link", "set", peerLink, "netns", peerNamespace])
      for (namespace, link, address) in [
        (responderNamespace, responderLink, responderAddress), (peerNamespace, peerLink, peerAddress),
      ] {
        try Self.run(["netns", "exec", namespace, Self.ip, "link", "set", "lo", "up"])
        try Self.run(["netns", "exec", namespace, Self.ip, "addr", "add", "\(address)/24", "dev", link])
        try Self.run(["netns", "exec", namespace, Self.ip, "link", "set", link, "multicast", "on", "up"])
      }
      try startBus()
    } catch {
      Self.removeNamespaces(responderNamespace, peerNamespace)
      throw error
    }
    if startResponder { try self.startResponder() }
  }

  /// Starts dbus-daemon on the bus socket and waits until it listens.
  private func startBus() throws {
    let daemon = try ChildProcess(
      Self.dbusDaemon, ["--config-file=\(directory.path)/bus.conf", "--nofork", "--print-address=1"])
    bus.withLock { $0 = daemon }
    try daemon.waitForLine(containing: "unix:path=", within: 60)
  }

  /// Stops avahi-daemon and the bus, then starts both again (a D-Bus restart, as an upgrade of
  /// the dbus package does): clients must connect anew to a new bus.
  public func restartBus(within seconds: Double = 60) throws {
    try stopResponder()
    if let daemon = bus.withLock({ $0 }) { _ = try daemon.terminate() }
    try startBus()
    try startResponder(within: seconds)
  }

  /// Starts avahi-daemon (again) and waits until it has announced its host name and is on the bus.
  public func startResponder(within seconds: Double = 60) throws {
    try stopResponder()
    // `ip netns exec` gives the daemon a mount namespace of its own: the tmpfs over /run (for
    // its fixed /run/avahi-daemon/pid) stays there.
    let (executable, arguments) = inResponderNamespace(
      "/bin/sh",
      [
        "-c",
        "mount -t tmpfs -o mode=0755 tmpfs /run && exec \(Self.avahiDaemon) --no-drop-root --no-chroot --no-rlimits -f \(directory.path)/avahi-daemon.conf",
      ])
    let daemon = try ChildProcess(executable, arguments, environment: environment)
    responder.withLock { $0 = daemon }
    try daemon.waitForLine(containing: "Server startup complete", within: seconds)
  }

  /// Stops avahi-daemon (SIGTERM: it leaves the bus, its clients see it go).
  public func stopResponder() throws {
    guard
      let daemon = responder.withLock({ process -> ChildProcess? in
        defer { process = nil }
        return process
      })
    else { return }
    _ = try daemon.terminate()
  }

  /// Everything avahi-daemon printed (the last one started).
  public var responderOutput: String { responder.withLock { $0?.output ?? "" } }

  /// The command line that runs `executable` in the responder's namespace.
  public func inResponderNamespace(_ executable: String, _ arguments: [String]) -> (String, [String]) {
    (Self.ip, ["netns", "exec", responderNamespace, executable] + arguments)
  }

  /// Starts a program in the responder's namespace with the bus address in its environment:
  /// a hub (or any server) there listens on `responderAddress`, the address avahi-daemon
  /// announces, so controllers in the peer namespace reach what they discovered.
  /// (`HubUnderTest` writes the config and talks to the control socket, a path, from anywhere.)
  public func startInResponderNamespace(
    _ executable: String, _ arguments: [String], environment extra: [String: String] = [:]
  ) throws -> ChildProcess {
    let (command, commandArguments) = inResponderNamespace(executable, arguments)
    return try ChildProcess(command, commandArguments, environment: environment.merging(extra) { $1 })
  }

  /// The command line that runs `executable` in the controllers' namespace (another host).
  public func inPeerNamespace(_ executable: String, _ arguments: [String]) -> (String, [String]) {
    (Self.ip, ["netns", "exec", peerNamespace, executable] + arguments)
  }

  /// One service as `avahi-browse -rpt` resolved it.
  public struct BrowsedService: Sendable, Equatable {
    public let name: String
    public let type: String
    public let host: String
    public let address: String
    public let port: Int
    public let txt: [String: String]
  }

  /// The services of `type` avahi-daemon knows now (`avahi-browse -rpt TYPE`: browse, resolve,
  /// end at "all for now").
  public func browse(_ type: String = "_hap._tcp") throws -> [BrowsedService] {
    let process = try ChildProcess(Self.avahiBrowse, ["-rpt", type], environment: environment)
    let status = try process.waitForExit(within: 60)
    guard status == 0 else {
      throw ChildProcessError("avahi-browse -rpt \(type) failed (\(status)):\n\(process.output)")
    }
    return process.lines.compactMap(Self.parseResolved)
  }

  /// Publishes a service with `avahi-publish -s` and waits until it is established; it is
  /// withdrawn when the returned process ends (when the test lets go of it).
  public func publish(name: String, type: String = "_hap._tcp", port: Int, txt: [String]) throws -> ChildProcess {
    let process = try ChildProcess(
      Self.avahiPublish, ["-s", name, type, String(port)] + txt, environment: environment)
    try process.waitForLine(containing: "Established under name", within: 60)
    return process
  }

  /// What aiohomekit saw of one accessory (its `HomeKitService` description).
  public struct AiohomekitDiscovery: Sendable, Decodable, Equatable {
    public let name: String
    public let id: String
    public let md: String
    public let sf: Int
    public let c: Int
    public let ci: Int
    public let pv: String
    public let address: String
    public let port: Int
  }

  /// Runs aiohomekit's discovery (python-zeroconf, as Home Assistant sets it up) in the peer
  /// namespace until it finds `deviceID` with the given status flags and configuration number
  /// (nil: any), or `seconds` pass. Returns what it saw last (nil: never found).
  public func discoverWithAiohomekit(
    _ python: PythonEnvironment, deviceID: String, statusFlags: Int? = nil, configurationNumber: Int? = nil,
    within seconds: Double = 60
  ) throws -> (found: Bool, last: AiohomekitDiscovery?, output: String) {
    let script = try directory.write("aiohomekit-find.py", Self.aiohomekitFind)
    let (executable, arguments) = inPeerNamespace(
      python.python,
      [script, deviceID, String(statusFlags ?? -1), String(configurationNumber ?? -1), String(seconds)])
    let result = try runProgram(executable, arguments, within: seconds + 60)
    let lines = result.output.split(separator: "\n").map(String.init)
    guard let line = lines.last(where: { $0.hasPrefix("FOUND ") || $0.hasPrefix("NOTFOUND ") }) else {
      throw ChildProcessError("aiohomekit discovery failed (\(result.status)):\n\(result.output)")
    }
    let json = line.drop { $0 != " " }.dropFirst()
    let last = try? JSONDecoder().decode(AiohomekitDiscovery.self, from: Data(json.utf8))
    return (line.hasPrefix("FOUND "), last, result.output)
  }

  deinit {
    try? stopResponder()
    if let daemon = bus.withLock({ $0 }) { _ = try? daemon.terminate() }
    unlink(busSocket)
    Self.removeNamespaces(responderNamespace, peerNamespace)
  }

  /// A `=` line of `avahi-browse -p`: `=;IF;PROTO;NAME;TYPE;DOMAIN;HOST;ADDRESS;PORT;"k=v" ...`.
  static func parseResolved(_ line: String) -> BrowsedService? {
    let fields = line.split(separator: ";", maxSplits: 9, omittingEmptySubsequences: false).map(String.init)
    guard fields.count == 10, fields[0] == "=", let port = Int(fields[8]) else { return nil }
    var txt: [String: String] = [:]
    for entry in quotedStrings(fields[9]) {
      let pair = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      txt[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
    }
    return BrowsedService(
      name: unescape(fields[3]), type: fields[4], host: fields[6], address: fields[7], port: port, txt: txt)
  }

  /// avahi-browse escapes a name's dots, backslashes and non-printable bytes as `\DDD` (decimal).
  static func unescape(_ text: String) -> String {
    var bytes: [UInt8] = []
    var characters = Array(text.utf8)[...]
    while let byte = characters.popFirst() {
      if byte == UInt8(ascii: "\\"), characters.count >= 3,
        let value = UInt8(String(decoding: characters.prefix(3), as: UTF8.self))
      {
        bytes.append(value)
        characters = characters.dropFirst(3)
      } else if byte == UInt8(ascii: "\\"), let next = characters.popFirst() {
        bytes.append(next)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `"a=1" "b=2"` → `["a=1", "b=2"]`.
  static func quotedStrings(_ text: String) -> [String] {
    var result: [String] = []
    var current: String? = nil
    for character in text {
      if character == "\"" {
        if let done = current {
          result.append(done)
          current = nil
        } else {
          current = ""
        }
      } else if current != nil {
        current!.append(character)
      }
    }
    return result
  }

  static func run(_ arguments: [String]) throws {
    let result = try runProgram(ip, arguments, within: 30)
    if result.status != 0 { throw ChildProcessError("ip \(arguments.joined(separator: " ")): \(result.output)") }
  }

  /// Deleting a namespace removes its veth end, and with it the pair.
  static func removeNamespaces(_ names: String...) {
    for name in names { _ = try? runProgram(ip, ["netns", "del", name], within: 30) }
  }

  /// A system-bus-like config: only our socket, EXTERNAL authentication, and everything allowed
  /// (avahi-daemon owns org.freedesktop.Avahi; the test user calls it).
  static func busConfig(listen socket: String) -> String {
    """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <type>system</type>
      <auth>EXTERNAL</auth>
      <listen>unix:path=\(socket)</listen>
      <policy context="default">
        <allow user="*"/>
        <allow own="*"/>
        <allow send_type="method_call"/>
        <allow send_type="signal"/>
        <allow send_requested_reply="true" send_type="method_return"/>
        <allow send_requested_reply="true" send_type="error"/>
        <allow receive_type="method_call"/>
        <allow receive_type="method_return"/>
        <allow receive_type="error"/>
        <allow receive_type="signal"/>
      </policy>
    </busconfig>

    """
  }

  static func avahiConfig(hostName: String, interface: String) -> String {
    """
    [server]
    host-name=\(hostName)
    use-ipv4=yes
    use-ipv6=no
    allow-interfaces=\(interface)
    enable-dbus=yes
    [wide-area]
    enable-wide-area=no
    [publish]
    publish-hinfo=no
    publish-workstation=no
    publish-aaaa-on-ipv4=no

    """
  }

  /// aiohomekit's discovery as Home Assistant runs it: one AsyncServiceBrowser for the HAP
  /// types (aiohomekit's controllers look it up among the zeroconf listeners), then
  /// `Controller.async_find(device id)`, until the description has the wanted flags.
  static let aiohomekitFind = """
    import asyncio, json, sys
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf
    from aiohomekit import Controller

    async def main(device_id, want_sf, want_c, seconds):
        azc = AsyncZeroconf()
        browser = AsyncServiceBrowser(azc.zeroconf, ["_hap._tcp.local.", "_hap._udp.local."], handlers=[lambda **kw: None])
        controller = Controller(async_zeroconf_instance=azc)
        await controller.async_start()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        last = None
        try:
            while loop.time() < deadline:
                try:
                    found = await controller.async_find(device_id, timeout=max(1.0, deadline - loop.time()))
                except Exception as error:
                    print("not yet: " + repr(error), flush=True)
                    await asyncio.sleep(0.2)
                    continue
                s = found.description
                last = dict(name=s.name, id=s.id, md=s.model, sf=int(s.status_flags), c=s.config_num,
                            ci=int(s.category), pv=s.protocol_version, address=s.address, port=s.port)
                if (want_sf < 0 or last["sf"] == want_sf) and (want_c < 0 or last["c"] == want_c):
                    print("FOUND " + json.dumps(last), flush=True)
                    return 0
                # Wait for zeroconf to see the record change (the announcement of a new TXT).
                await asyncio.sleep(0.2)
            print("NOTFOUND " + json.dumps(last), flush=True)
            return 1
        finally:
            await controller.async_stop()
            await browser.async_cancel()
            await azc.async_close()

    sys.exit(asyncio.run(main(sys.argv[1].lower(), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))))

    """
}
