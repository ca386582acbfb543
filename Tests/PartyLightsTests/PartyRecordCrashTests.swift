import Foundation
import PartyLightsProtocol
import PatchbayTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The party record is written with the kit's `AtomicFile`: killing the plugin's process again
/// and again while it saves leaves a whole record (the old or the new one) and, once the
/// instance is back, no temp files of the writes the kills interrupted.
@Suite struct PartyRecordCrashTests {
  @Test func killsDuringSavesLeaveAWholeRecordAndNoTempFiles() throws {
    let hub = try HubUnderTest("patchbay-party-atomic", plugins: ["party-lights"])
    try hub.writeConfig(
      HubTOML()
        .instance(
          "party", plugin: "party-lights",
          ["lights": ["lamp"], "max_restarts": 50, "backoff_initial_ms": 100, "backoff_max_ms": 200]))
    let folder = hub.stateDirectory + "/instances/party"
    // What a kill in the middle of a write left before this hub started.
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try "{\"phase\":".write(toFile: folder + "/party.json.tmp-4242-7", atomically: false, encoding: .utf8)
    try hub.start()
    try hub.waitUntilRunning("party")
    defer { _ = try? hub.stop() }
    #expect(!FileManager.default.fileExists(atPath: folder + "/party.json.tmp-4242-7"))
    let record = folder + "/party.json"
    // Every new speed is a save; the hub keeps only the latest for a state input.
    let sending = SendingFlag()
    let sender = Thread {
      var step = 0
      while sending.on.load(ordering: .relaxed) {
        step += 1
        try? hub.send("party.speed", "\(1 + Double(step % 997) / 100)")
      }
    }
    sender.start()
    defer { sending.on.store(false, ordering: .relaxed) }
    try eventually("the first record", within: 60) { FileManager.default.fileExists(atPath: record) }
    for _ in 0..<5 {
      let victim = try #require(try hub.pid(of: "party"))
      kill(victim, SIGKILL)
      let data = try #require(FileManager.default.contents(atPath: record))
      #expect(
        (try? JSONDecoder().decode(PartyRecord.self, from: data)) != nil,
        "torn record after a kill: \(String(decoding: data, as: UTF8.self))")
      try hub.waitForNewProcess(
        of: "party", replacing: victim, what: "the party back in a new process; the hub's log:\n\(hub.log)",
        within: 90)
    }
    sending.on.store(false, ordering: .relaxed)
    // The last restart removed what the kills left; the sender's last writes completed.
    try eventually("no temp files in \(folder)", within: 30) {
      let names = try FileManager.default.contentsOfDirectory(atPath: folder)
      return !names.contains { $0.contains(".tmp") }
    }
    let final = try #require(FileManager.default.contents(atPath: record))
    #expect((try? JSONDecoder().decode(PartyRecord.self, from: final)) != nil)
  }
}

final class SendingFlag: Sendable {
  let on = Atomic(true)
}
