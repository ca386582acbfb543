import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The recorder in a real patchbay-web, fed by a real hub: GET /api/history, `patchbay history`
/// (with the hub running and stopped), /metrics, and a full disk under the history.
@Suite(.serialized) struct WebHistoryTests {
  static let patchbay = BuildProducts.executable("patchbay")

  /// `patchbay send` as a user would type it.
  static func send(_ harness: WebHarness, _ address: String, _ value: String) throws {
    let result = try runProgram(patchbay, ["send", "--config", harness.configPath, address, value], within: 60)
    #expect(result.status == 0, "\(result.output)")
  }

  /// The points of a port that /api/history gives, as (value text, has min) pairs.
  static func values(_ harness: WebHarness, _ port: String) throws -> [String] {
    let answer = try HTTPCall.get(harness.base + "/api/history?port=\(port)&since=3600").object
    return (answer["points"] as? [[String: Any]] ?? []).map { point in
      let value = point["value"]
      if let number = value as? NSNumber { return number.stringValue }
      return value as? String ?? "\(value ?? "nil")"
    }
  }

  @Test func theHistoryOfAPortThroughTheAPIAndTheCLI() throws {
    let harness = try WebHarness()
    try harness.startHub(extra: HubTOML().table("recorder", ["retention_days": 7]))
    try harness.startWeb(extra: ["--config", harness.configPath])
    // patchbay-web follows the hub once it has connected: until then a value may pass unseen.
    try eventually("the first value recorded", within: 60, pollEvery: 0.5) {
      try Self.send(harness, "probe.level", "1")
      return try Self.values(harness, "probe.level.out").contains("1")
    }
    for value in 2...5 { try Self.send(harness, "probe.level", "\(value)") }
    try eventually("five values recorded", within: 60) {
      try Self.values(harness, "probe.level.out").suffix(4) == ["2", "3", "4", "5"]
    }
    // The answer's exact shape, the page's sparklines read it.
    let answer = try HTTPCall.get(harness.base + "/api/history?port=probe.level.out&since=600")
    #expect(answer.status == 200)
    let object = answer.object
    #expect(Set(object.keys) == ["port", "since", "points", "dropped"], "\(answer.body)")
    #expect(object["port"] as? String == "probe.level.out")
    #expect(object["dropped"] as? Int == 0)
    let since = object["since"] as? Double ?? 0
    #expect(abs(since - (Date().timeIntervalSince1970 - 600)) < 120, "\(since)")
    let points = object["points"] as? [[String: Any]] ?? []
    #expect(points.allSatisfy { Set($0.keys) == ["t", "value"] }, "raw points have no min and max: \(answer.body)")
    let times = points.compactMap { $0["t"] as? Double }
    #expect(times == times.sorted() && times.count == points.count)
    // Only the listed kind of port: an event output is not a state output.
    try Self.send(harness, "probe.press", "click")
    #expect(try Self.values(harness, "probe.press.out").isEmpty)
    #expect(try HTTPCall.get(harness.base + "/api/history").status == 400)

    let metrics = try HTTPCall.get(harness.base + "/metrics").body
    let written = metrics.split(separator: "\n").first { $0.hasPrefix("patchbay_recorder_written_total ") }
    #expect(written.flatMap { Int($0.split(separator: " ").last ?? "") }.map { $0 >= 5 } == true, "\(metrics)")
    #expect(metrics.contains("patchbay_recorder_dropped_total 0"))
    #expect(metrics.contains("patchbay_recorder_database_bytes "))

    // `patchbay history`: one line per point, local time, with the hub up and then stopped.
    let today = {
      let formatter = DateFormatter()
      formatter.dateFormat = "yyyy-MM-dd"
      formatter.timeZone = .current
      return formatter.string(from: Date())
    }()
    for hubRunning in [true, false] {
      if !hubRunning {
        try harness.hub?.terminate(within: 60)
        harness.hub = nil
      }
      let printed = try runProgram(
        Self.patchbay, ["history", "probe.level.out", "--since", "1h", "--config", harness.configPath])
      print("patchbay history (hub \(hubRunning ? "running" : "stopped")):\n\(printed.output)")
      #expect(printed.status == 0, "\(printed.output)")
      let lines = printed.output.split(separator: "\n")
      #expect(lines.suffix(4).map { $0.split(separator: " ").last.map(String.init) ?? "" } == ["2", "3", "4", "5"])
      // A day that crosses midnight while the test runs is allowed its yesterday.
      #expect(lines.allSatisfy { $0.hasPrefix(today) || $0.hasPrefix("20") }, "\(printed.output)")
    }
    let none = try runProgram(Self.patchbay, ["history", "probe.night.out", "--config", harness.configPath])
    #expect(none.status == 1)
    #expect(none.output.contains("no history of probe.night.out yet"), "\(none.output)")
    try harness.stop()
  }

  /// Without a database (patchbay-web never ran) `history` says so.
  @Test func noHistoryYetIsSaid() throws {
    let harness = try WebHarness()
    try harness.directory.write(
      "patchbay.toml",
      WebHarness.config(directory: harness.directory.path, socket: harness.socketPath, record: harness.recordPath).toml)
    let printed = try runProgram(Self.patchbay, ["history", "probe.level.out", "--config", harness.configPath])
    #expect(printed.status == 1)
    #expect(printed.output.contains("no history yet"), "\(printed.output)")
    #expect(printed.output.contains("history.sqlite does not exist"), "\(printed.output)")
  }

  /// A mistake in [recorder] stops patchbay-web with the file and the key.
  @Test func aRecorderMistakeNamesFileAndKey() throws {
    let harness = try WebHarness()
    try harness.startHub()
    // The hub refuses the same mistake at its start, so it is made once the hub runs.
    try harness.directory.write(
      "patchbay.toml",
      WebHarness.config(directory: harness.directory.path, socket: harness.socketPath, record: harness.recordPath)
        .table("recorder", ["retention_day": 7]).toml)
    let run = try runProgram(
      BuildProducts.executable("patchbay-web"),
      ["--listen", "127.0.0.1:0", "--socket", harness.socketPath, "--config", harness.configPath], within: 60)
    #expect(run.status != 0)
    #expect(
      run.output.contains("patchbay.toml: recorder.retention_day: unknown key (did you mean 'retention_days'?)"),
      "\(run.output)")
    let check = try runProgram(Self.patchbay, ["check", "--config", harness.configPath], within: 60)
    #expect(check.status != 0)
    #expect(check.output.contains("recorder.retention_day"), "\(check.output)")
    try harness.stop()
  }

  /// The history on a small tmpfs (in patchbay-web's own mount namespace) that fills up: values
  /// are dropped from the history and counted in /metrics, while a route between two ports
  /// delivers every one of them.
  @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
  func aFullDiskCostsHistoryNotRoutes() throws {
    let harness = try WebHarness()
    let writerRecord = harness.directory.path + "/writer.jsonl"
    try harness.startHub(
      extra: HubTOML()
        .probe("writer", record: writerRecord, ports: [.event("note", "text"), .event("note_copy", "text")])
        .route(from: "writer.note.out", to: "writer.note_copy")
        .table("recorder", ["ports": ["writer.note.out"]]))
    let state = harness.directory.path + "/state"
    try harness.startWeb(
      extra: ["--config", harness.configPath],
      launcher: [
        "/usr/bin/unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
        #"mkdir -p "$0" && mount -t tmpfs -o size=512k tmpfs "$0" && exec "$@""#, state + "/history",
      ])
    let web = try #require(harness.web)
    let padding = String(repeating: "p", count: 2000)
    try eventually("the first note recorded", within: 60, pollEvery: 0.5) {
      try Self.send(harness, "writer.note", "first \(padding)")
      return try !Self.values(harness, "writer.note.out").isEmpty
    }
    let before = try Self.values(harness, "writer.note.out").count
    // Fill the tmpfs from inside patchbay-web's namespace (dd stops at "No space left on device").
    let fill = try runProgram(
      "/usr/bin/nsenter",
      ["--target", "\(web.pid)", "--mount", "--", "/bin/dd", "if=/dev/zero", "of=\(state)/history/filler", "bs=4096"],
      within: 60)
    #expect(fill.output.contains("No space left"), "\(fill.output)")
    let count = 150
    let loop = try runProgram(
      "/bin/sh",
      [
        "-c", #"for i in $(seq 1 "$1"); do "$2" send --config "$3" writer.note "n$i $4" || exit 1; done"#, "send",
        "\(count)", Self.patchbay, harness.configPath, padding,
      ], within: 300)
    #expect(loop.status == 0, "\(loop.output.suffix(500))")
    // Every note went along the route, in order.
    var seen = 0
    do {
      try eventually("every note delivered", within: 120) {
        let delivered = ((try? String(contentsOfFile: writerRecord, encoding: .utf8)) ?? "")
          .split(separator: "\n").filter { $0.contains(#""port":"note_copy""#) && $0.contains(#""value":"n"#) }
        seen = delivered.count
        return seen == count
      }
    } catch {
      let record = (try? String(contentsOfFile: writerRecord, encoding: .utf8)) ?? ""
      Issue.record("\(seen) of \(count) notes on note_copy; record ends: \(record.suffix(600))")
      throw error
    }
    let delivered = try String(contentsOfFile: writerRecord, encoding: .utf8).split(separator: "\n")
      .filter { $0.contains(#""port":"note_copy""#) && $0.contains(#""value":"n"#) }
      .compactMap { $0.split(separator: "\"value\":\"n").last?.split(separator: " ").first.map(String.init) }
    #expect(delivered == (1...count).map(String.init))
    // The history lost values, and says how many.
    var dropped = 0
    try eventually("drops counted in /metrics", within: 60) {
      let metrics = try HTTPCall.get(harness.base + "/metrics").body
      let line = metrics.split(separator: "\n").first { $0.hasPrefix("patchbay_recorder_dropped_total ") }
      dropped = line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
      return dropped > 0
    }
    let answer = try HTTPCall.get(harness.base + "/api/history?port=writer.note.out&since=3600").object
    let kept = (answer["points"] as? [[String: Any]] ?? []).count
    print(
      "full disk: \(count) notes routed, \(dropped) dropped from the history, \(kept) kept (\(before) before the disk filled)"
    )
    #expect(answer["dropped"] as? Int == dropped)
    #expect(kept >= before && kept < count + before)
    try harness.web!.waitForLine(containing: "values are dropped from the history", within: 30)
    // unshare execs patchbay-web itself: SIGTERM reaches it.
    try harness.stop()
  }
}
