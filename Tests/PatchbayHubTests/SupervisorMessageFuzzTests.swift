import Foundation
import PatchbayTestSupport
import PatchbayValues
import PatchbayWire
import Testing

@testable import PatchbayCore

/// The supervisor's handling of decoded host messages, fuzzed: random well-formed messages
/// (every kind, extreme numbers: counters at UInt64.max, port indices past the end, any log
/// level, redeclared ports, failures of every stage) reach a real `InstanceSupervisor` of an
/// in-memory hub, alone and in batches, between crashes, restarts and status reads. The
/// wire decoder has its own fuzzer; this one proves that nothing a well-formed frame can say
/// traps the hub. `PATCHBAY_SUPERVISOR_FUZZ_ITERATIONS` sets the length (CI runs a long one).
@Suite struct SupervisorMessageFuzzTests {
  static let ports: [String: [PortDescriptor]] = [
    "target": [.output("out", .integer), .input("level", .integer), .output("peer", .text, .state)],
    "lamp": [.input("level", .integer)],
  ]

  static var iterations: Int {
    ProcessInfo.processInfo.environment["PATCHBAY_SUPERVISOR_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 20_000
  }

  @Test func noWellFormedMessageTrapsTheHub() throws {
    let setup = try InMemoryHub(
      """
      [instances.target]
      plugin = "embedded"
      max_restarts = 1000000
      # Every refused message is an error line: hundreds of thousands in CI's long run.
      log_level = "critical"
      [instances.lamp]
      plugin = "embedded"
      [[routes]]
      from = "target.out"
      to = "lamp.level"
      """, ports: Self.ports)
    defer { setup.stop() }
    try setup.hub.start()
    #expect(setup.waitForPhase(.running, of: "target"))
    let supervisor = try #require(setup.hub.instance(named: "target"))
    var random = SplitMix64(seed: 0x5eed_f00d)
    var fed = 0
    for round in 0..<Self.iterations {
      // The process the supervisor thinks is current (or an old one: messages from a dead
      // process must be as harmless).
      guard let plugin = setup.plugins.plugin("target") else { continue }
      let count = Int(random.next() % 4) + 1
      let messages = (0..<count).map { _ in Self.message(&random) }
      if count == 1 {
        supervisor.pluginChannel(plugin, received: messages[0])
      } else {
        supervisor.pluginChannel(plugin, received: messages)
      }
      fed += count
      switch random.next() % 64 {
      case 0: plugin.crash()
      // `patchbay restart` runs on a global dispatch thread and returns at once; the loop waits
      // for it (the old process gone) so that restarts do not pile up: thousands of queued
      // restarts, each holding a dispatch thread while it waits for a stop, starved the threads
      // Swift concurrency runs on (under load the test then took minutes to end after its loop).
      case 1: setup.restart("target")
      case 2: setup.advance(by: 1)
      default: break
      }
      if round % 16 == 0 {
        // What a `status`, a /metrics scrape or the web page reads: every sum of counters.
        let status = setup.hub.status()
        _ = status.instances.map { $0.refusals.addingSaturated($0.publishBusy).addingSaturated($0.publishWaits) }
        _ = try JSONEncoder().encode(status)
      }
    }
    let status = try #require(setup.status("target"))
    // Counters the host reported at UInt64.max saturate instead of trapping.
    #expect(status.refusals >= 0 && status.publishBusy >= 0 && status.publishWaits >= 0)
    #expect(fed >= Self.iterations)
  }

  /// One random, well-formed host message.
  static func message(_ random: inout SplitMix64) -> HostMessage {
    func number() -> UInt64 {
      switch random.next() % 4 {
      case 0: .max
      case 1: .max - random.next() % 16
      case 2: random.next() % 8
      default: random.next()
      }
    }
    let info = PluginInfo(name: "embedded", version: "1.0", description: "fuzz", abiMajor: 1, abiMinor: 3)
    switch random.next() % 14 {
    case 0: return .refusals(total: number())
    case 1: return .publishPressure(busy: number(), waits: number())
    case 2: return .refusedCalls(total: number())
    case 3:
      return .confined(
        landlockABI: UInt8(truncatingIfNeeded: random.next()), network: random.next() & 1 == 0,
        signals: random.next() & 1 == 0, seccomp: random.next() & 1 == 0)
    case 4: return .heartbeat(sequence: number())
    case 5: return .log(level: UInt8(truncatingIfNeeded: random.next()), message: "fuzz \(random.next())")
    case 6:
      let port = UInt32(truncatingIfNeeded: random.next() % 3 == 0 ? random.next() : random.next() % 4)
      return .publish(port: port, value: value(&random), hops: UInt8(truncatingIfNeeded: random.next()))
    case 7:
      let stages: [LifecycleStage] = [.load, .create, .start, .stop, .fault, .retire]
      let stage = stages[Int(random.next() % UInt64(stages.count))]
      // Not load: a refused load marks the instance failed for good (no more rounds to fuzz).
      return .failed(
        stage: stage == .load ? .start : stage, status: Int32(truncatingIfNeeded: random.next()), message: "fuzz")
    case 8:
      // Ports redeclared: more, fewer, or attributes that do not fit (mirrors, status roles).
      var ports = Self.ports["target"]!
      if random.next() & 1 == 0 { ports.removeLast() }
      if random.next() & 1 == 0 {
        ports.append(
          PortDescriptor(
            name: "extra\(random.next() % 4)", direction: .output, kind: .event, type: .bool, mirrors: "nothing",
            statusRole: .peer))
      }
      return .created(info, ports: ports)
    case 9: return .started
    case 10:
      let version = random.next() % 5 == 0 ? UInt8(truncatingIfNeeded: random.next()) : WireProtocol.version
      return .hello(protocolVersion: version, pid: 1)
    case 11: return .described(info)
    case 12: return .stopped
    default: return .retired
    }
  }

  static func value(_ random: inout SplitMix64) -> Value {
    switch random.next() % 6 {
    case 0: .integer(Int64(bitPattern: random.next()))
    case 1: .bool(true)
    case 2: .text("t\(random.next())")
    case 3: .number(Double(bitPattern: random.next()))
    case 4: .trigger
    default: .button(ButtonEvent(action: .click, queued: true, ageMs: UInt32(truncatingIfNeeded: random.next())))
    }
  }
}
