import PatchbayPluginKit

#if canImport(Glibc)
  import Glibc
#endif

/// fault: a plugin that misbehaves on command, for proving the hub's isolation and supervisor.
///
/// Inputs: `command` (event, text): segfault | abort | exit CODE | hang | leak MB | flood N |
/// flood-try N (publishes without waiting: on `.busy` waits for room and publishes the value
/// again, then logs how often it was busy) | slow MS |
/// garbage (writes a broken frame onto the host's socket to the hub);
/// `events` (event, integer): echoed on output `echo` (and recorded when `record` is set),
/// after sleeping `slow` ms if a slow-consumer mode is on.
/// Config: `on_start` = a command to run inside start(); `on_input` = a command to run when any
/// `events` value arrives; `record` = file path for JSON lines of received events.
final class Fault: PatchbayPlugin {
  struct Config: Decodable {
    var on_start: String?
    var on_input: String?
    var record: String?
  }

  let context: PluginContext
  let config: Config
  let echo: OutputPort
  let flood: OutputPort
  let command: InputPort
  let events: InputPort
  var slowMs = 0
  var leaked: [[UInt8]] = []
  /// The record file's descriptor, opened for appending; -1 without `record`.
  let record: Int32

  init(context: PluginContext) throws {
    self.context = context
    config = try context.config(Config.self)
    command = try context.addInput("command", .text, kind: .event, description: "fault to inject")
    events = try context.addInput("events", .integer, kind: .event, description: "echoed on `echo`")
    echo = try context.addOutput("echo", .integer, kind: .event)
    flood = try context.addOutput("flood", .integer, kind: .event)
    record = config.record.map { open($0, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) } ?? -1
  }

  deinit { if record >= 0 { close(record) } }

  func start() throws {
    if let fault = config.on_start { run(fault) }
  }

  func receive(_ value: Value, on port: InputPort) throws {
    switch (port, value) {
    case (command, .text(let text)):
      run(text)
    case (events, .integer(let number)):
      if let fault = config.on_input { run(fault) }
      // The delay is the feature (a slow consumer). Nothing could end it early: stop() waits
      // behind this callback on the same plugin context.
      if slowMs > 0 { usleep(UInt32(slowMs) * 1000) }
      if record >= 0 {
        let line = Array("\(number)\n".utf8)
        _ = line.withUnsafeBytes { write(record, $0.baseAddress, $0.count) }
      }
      context.publish(.integer(number), on: echo)
    default:
      break
    }
  }

  func run(_ command: String) {
    let words = command.split(separator: " ")
    let argument = words.count > 1 ? Int(words[1]) ?? 0 : 0
    context.log(.warning, "injecting fault: \(command)")
    switch words.first ?? "" {
    case "segfault":
      let pointer = UnsafeMutablePointer<Int>(bitPattern: 8)!
      pointer.pointee = 42
    case "abort":
      abort()
    case "exit":
      exit(Int32(argument))
    case "hang":
      while true { sleep(1000) }
    case "leak":
      // Filled arrays, so the pages are really used; past the memory limit the allocation
      // fails and the Swift runtime ends the process, as a real leak would.
      for _ in 0..<max(argument, 1) { leaked.append([UInt8](repeating: 1, count: 1024 * 1024)) }
    case "flood":
      for number in 0..<argument { context.publish(.integer(Int64(number)), on: flood) }
    case "flood-try":
      var busy = 0
      for number in 0..<argument {
        while context.tryPublish(.integer(Int64(number)), on: flood) == .busy {
          busy += 1
          context.waitForRoom()
        }
      }
      context.log(.warning, "flood-try: \(argument) published, \(busy) times busy")
    case "garbage":
      // Writes straight onto the plugin host's socket to the hub (fd 3), bypassing the host:
      // a frame with an unknown version. The hub must treat the process as broken.
      let frame: [UInt8] = [0xEE, 0x42, 0x13, 0x37, 0xDE, 0xAD]
      _ = frame.withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
    case "slow":
      slowMs = argument
    default:
      context.log(.error, "unknown fault '\(command)'")
    }
  }
}

@_cdecl("patchbay_plugin_describe")
public func patchbayPluginDescribe() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: Fault.self, name: "fault", version: PatchbayVersion.current,
    description: "Misbehaves on command, for testing the hub")
}
