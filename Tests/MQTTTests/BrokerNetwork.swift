import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A network namespace of its own for the broker, joined to the test's namespace by a veth
/// pair: the hub reaches the broker over a real link that the test can cut (the broker
/// becomes unreachable, as when a Wi-Fi drops) and heal. Needs root (`ip netns`, `ip link`).
final class BrokerNetwork {
  /// Why these tests cannot run here, or nil when they can.
  static let unavailable: String? = {
    guard getuid() == 0 else { return "needs root for ip netns" }
    guard FileManager.default.isExecutableFile(atPath: ip) else { return "needs iproute2 (\(ip))" }
    return nil
  }()

  static let ip = "/usr/sbin/ip"

  let namespace: String
  /// The veth end in the test's namespace, and the one in the broker's.
  let hostLink: String
  let brokerLink: String
  let hostAddress: String
  let brokerAddress: String
  /// The first three bytes of the link's /30.
  let subnet: String

  init() throws {
    let tag = String(UInt32(getpid()) % 10_000) + "x" + String(Int.random(in: 0..<100_000))
    namespace = "pbmqtt\(tag)"
    hostLink = "pbh\(tag)"
    brokerLink = "pbb\(tag)"
    subnet = "10.\(Int.random(in: 100...250)).\(Int.random(in: 0...255))"
    hostAddress = "\(subnet).1"
    brokerAddress = "\(subnet).2"
    try Self.run(["netns", "add", namespace])
    do {
      try Self.run(["link", "add", hostLink, "type", "veth", "peer", "name", brokerLink])
      try Self.run(["link", "set", brokerLink, "netns", namespace])
      try Self.run(["addr", "add", "\(hostAddress)/30", "dev", hostLink])
      try Self.run(["link", "set", hostLink, "up"])
      // While the link is down its route goes, and this one answers instead: no route to the
      // broker, as on a hub whose interface went down (not the default route's way out).
      try Self.run(["route", "add", "unreachable", "\(subnet).0/30", "metric", "4000"])
      try inside(["addr", "add", "\(brokerAddress)/30", "dev", brokerLink])
      try inside(["link", "set", brokerLink, "up"])
      // Loopback inside, for a client on the broker's side of a cut.
      try inside(["link", "set", "lo", "up"])
    } catch {
      try? Self.run(["route", "del", "unreachable", "\(subnet).0/30"])
      try? Self.run(["link", "del", hostLink])
      try? Self.run(["netns", "del", namespace])
      throw error
    }
  }

  /// The command line that runs `executable` in the broker's namespace.
  func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
    (Self.ip, ["netns", "exec", namespace, executable] + arguments)
  }

  /// The link goes down on the hub's side: no packet crosses, and the broker keeps running.
  func cut() throws { try Self.run(["link", "set", hostLink, "down"]) }

  func heal() throws { try Self.run(["link", "set", hostLink, "up"]) }

  private func inside(_ arguments: [String]) throws { try Self.run(["netns", "exec", namespace, Self.ip] + arguments) }

  static func run(_ arguments: [String]) throws {
    let result = try runProgram(ip, arguments, within: 30)
    if result.status != 0 { throw TestSetupError("ip \(arguments.joined(separator: " ")): \(result.output)") }
  }

  /// Deleting the namespace removes its veth end, and with it the pair (once the processes
  /// inside, the broker's, have ended: stop them first).
  deinit {
    try? Self.run(["route", "del", "unreachable", subnet + ".0/30"])
    try? Self.run(["link", "del", hostLink])
    try? Self.run(["netns", "del", namespace])
  }
}
