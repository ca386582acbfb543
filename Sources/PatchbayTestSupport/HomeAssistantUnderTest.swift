import Foundation
import PatchbayValues

/// A real Home Assistant (`homeassistant` from PyPI, one of `releases`) for the mqtt tests:
/// `hass` as a process of its own on a config directory, HTTP on a free loopback port,
/// onboarded (its owner's access token; logged in again after a restart on the same directory)
/// and driven through its own HTTP and websocket APIs by Scripts/home_assistant_driver.py, one
/// JSON command per line, as the frontend drives it.
///
/// The virtual environment is cached by `PythonEnvironment` (the first install takes minutes).
/// Only what MQTT needs is configured (no `default_config`); HA's own pip is off (`--skip-pip`),
/// so everything it imports comes from the cached environment. Errors carry HA's log tail.
public final class HomeAssistantUnderTest: Sendable {
  /// One Home Assistant release and how to install it.
  public struct Release: Sendable, CustomStringConvertible {
    public var version: String
    /// The Python whose venv module makes the environment.
    public var interpreter: String
    public var requirements: [String]
    /// A pip constraints file (the release's own package_constraints.txt), if any.
    public var constraints: String?
    /// Lines for `[instances.NAME.home_assistant]` this release needs from the hub.
    public var hubSettings: String
    public var description: String { "Home Assistant \(version)" }

    /// The newest release that installs on Debian 12's Python 3.11. It refuses a JSON light
    /// without `color_mode: true` (one voluptuous inclusion group before 2024.4), so the hub
    /// runs with `legacy_color_mode`.
    ///
    /// HA with the requirements of the integrations it loads here (HA's pip is off): mqtt
    /// (paho-mqtt) and its file_upload (janus); onboarding's person → image_upload (Pillow)
    /// and analytics, which imports the recorder (SQLAlchemy, fnv-hash-fast,
    /// psutil-home-assistant). The Bluetooth libraries are pinned as in HA's
    /// package_constraints.txt: unpinned, pip backtracks through every habluetooth release.
    /// (MQTT's camera platform fails to import without numpy and ha-av; no test needs one.)
    public static let ha2024 = Release(
      version: "2024.1.6", interpreter: "/usr/bin/python3",
      requirements: [
        "homeassistant==2024.1.6", "paho-mqtt==1.6.1", "janus==1.0.0", "Pillow==10.1.0", "SQLAlchemy==2.0.23",
        "fnv-hash-fast==0.5.0", "psutil-home-assistant==0.0.1", "habluetooth==2.1.0",
        "bluetooth-data-tools==1.19.0", "bleak==0.21.1", "bleak-retry-connector==3.4.0",
        "bluetooth-adapters==0.16.2", "dbus-fast==2.21.0",
      ],
      constraints: nil, hubSettings: "legacy_color_mode = true")

    /// The release issue 45 was seen with; it needs Python 3.13 (pyenv's, or
    /// `PATCHBAY_PYTHON_3_13`). Everything pip brings is pinned by the release's own
    /// homeassistant/package_constraints.txt, copied from its wheel into Scripts/. Since 2024.x
    /// HA always sets up its default integrations, and without the frontend's package it
    /// starts in recovery mode (no MQTT): home-assistant-frontend is needed too.
    public static let ha2025 = Release(
      version: "2025.4.4", interpreter: python313,
      requirements: [
        "homeassistant==2025.4.4", "home-assistant-frontend", "paho-mqtt", "Pillow", "SQLAlchemy", "fnv-hash-fast",
        "psutil-home-assistant",
      ],
      constraints: scripts + "/home-assistant-2025.4.4-constraints.txt", hubSettings: "")

    static var python313: String {
      let environment = ProcessInfo.processInfo.environment
      if let given = environment["PATCHBAY_PYTHON_3_13"] { return given }
      let root = environment["PYENV_ROOT"] ?? (NSHomeDirectory() + "/.pyenv")
      let candidates = [root + "/versions/3.13.0/bin/python3", "/usr/local/bin/python3.13", "/usr/bin/python3.13"]
      return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }
  }

  /// Every release the real-HA tests run against, oldest first.
  public static let releases = [Release.ha2024, Release.ha2025]

  static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts")
    .path
  public static let driverScript = scripts + "/home_assistant_driver.py"

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// `hass` (its log is the merged output).
  public let process: ChildProcess
  private let driver: ChildProcess
  public let url: String
  public let configDirectory: String
  /// The owner's user id, made by onboarding.
  public let userID: String
  public let release: Release

  /// Installs (first time) and starts Home Assistant `release` with its config in
  /// `directory`/homeassistant, and returns once it is onboarded (or, started again on the
  /// same directory, logged in) and its websocket answers.
  public init(directory: TemporaryDirectory, release: Release = .ha2024, startWithin seconds: Double = 300) throws {
    self.release = release
    let python = try PythonEnvironment.prepared(
      release.requirements, interpreter: release.interpreter, constraints: release.constraints)
    configDirectory = directory.path + "/homeassistant"
    // Held bound until HA listens: asyncio's servers set SO_REUSEADDR, so HA can share it
    // and no other process can take the port meanwhile.
    let reservation = try PortReservation()
    url = "http://127.0.0.1:\(reservation.port)"
    try directory.write(
      "homeassistant/configuration.yaml",
      """
      homeassistant:
        name: Patchbay test
        latitude: 52.37
        longitude: 4.89
        elevation: 0
        unit_system: metric
        time_zone: UTC
        currency: EUR
        country: NL
      http:
        server_host: 127.0.0.1
        server_port: \(reservation.port)
      websocket_api:
      config:
      onboarding:
      device_automation:
      automation: !include automations.yaml
      logger:
        default: warning
        logs:
          homeassistant.bootstrap: info
          homeassistant.components.mqtt: debug

      """)
    // Kept over a restart: the automations the test made.
    if !FileManager.default.fileExists(atPath: configDirectory + "/automations.yaml") {
      try directory.write("homeassistant/automations.yaml", "[]\n")
    }
    process = try ChildProcess(
      python.path + "/bin/hass", ["--config", configDirectory, "--skip-pip", "--log-no-color"])
    do {
      _ = try process.waitForLine(containing: "Home Assistant initialized", within: seconds)
      driver = try ChildProcess(python.python, [Self.driverScript, url], keepInputOpen: true)
      _ = try driver.waitForLine(containing: "\"ready\"", within: 300)
    } catch {
      _ = try? process.terminate(within: 60)
      throw Failure(description: "Home Assistant did not start: \(error)\nits log:\n\(process.output)")
    }
    withExtendedLifetime(reservation) {}
    var user = ""
    do {
      user = try Self.send(driver, #"{"onboard": true}"#, within: seconds).stringValue ?? ""
    } catch {
      _ = try? process.terminate(within: 60)
      _ = try? driver.terminate(within: 10)
      throw Failure(description: "\(error)\nHome Assistant's log:\n\(process.output)")
    }
    userID = user
  }

  deinit {
    _ = try? driver.terminate(within: 10)
    _ = try? process.terminate(within: 60)
  }

  /// Stops HA as a user would (SIGTERM: it saves its registries and ends its MQTT session),
  /// then fails if its log has an error or warning about what the hub announced.
  public func stop() throws {
    _ = try? driver.terminate(within: 10)
    _ = try process.terminate(within: 90)
    let problems = logProblems()
    let warnings = process.lines.filter { $0.contains(" ERROR (") || $0.contains(" WARNING (") }.count
    print("Home Assistant \(release.version): \(warnings) ERROR/WARNING lines, \(problems.count) about MQTT or the hub")
    if !problems.isEmpty {
      throw Failure(
        description: "Home Assistant \(release.version) logged \(problems.count) problems with the hub's payloads:\n"
          + problems.joined(separator: "\n"))
    }
  }

  /// ERROR and WARNING lines of HA's log about MQTT or the hub's topics, entities and config
  /// keys (HA's log lines start with a time, then the level).
  public func logProblems() -> [String] {
    process.lines.filter { line in
      let words = line.split(separator: " ", maxSplits: 3)
      guard words.count > 2, words[2] == "ERROR" || words[2] == "WARNING" else { return false }
      return line.contains("[homeassistant.components.mqtt") || line.contains("patchbay")
    }
  }

  /// Saves an automation as HA's editor does (`config/automations.yaml`, reloaded at once).
  public func saveAutomation(id: String, _ automation: [String: Any]) throws {
    var body = automation
    body["id"] = id
    try send(
      Self.line(["rest": ["method": "POST", "path": "/api/config/automation/config/\(id)", "body": body]]))
  }

  /// The last `lines` of HA's log.
  public func logTail(_ lines: Int = 150) -> String {
    process.lines.suffix(lines).joined(separator: "\n")
  }

  /// Adds the MQTT integration for the broker at `host`:`port` through its config flow (HA
  /// 2024.1 takes no broker in YAML); returns the config entry's id.
  @discardableResult
  public func addMQTT(host: String = "127.0.0.1", port: Int) throws -> String {
    let command = try Self.line(["mqtt": ["broker": host, "port": port]])
    return try send(command).stringValue ?? ""
  }

  /// One websocket command (`["type": "get_states"]`); returns its result.
  @discardableResult
  public func request(_ message: [String: Any], within seconds: Double = 300) throws -> JSONValue {
    try send(Self.line(["ws": message]), within: seconds)
  }

  /// The entity registry (`config/entity_registry/list`).
  public func entities() throws -> [JSONValue] { try request(["type": "config/entity_registry/list"]).arrayValue ?? [] }
  /// The device registry (`config/device_registry/list`).
  public func devices() throws -> [JSONValue] { try request(["type": "config/device_registry/list"]).arrayValue ?? [] }
  /// Every entity's state (`get_states`).
  public func states() throws -> [JSONValue] { try request(["type": "get_states"]).arrayValue ?? [] }
  /// One entity's state object (`state`, `attributes`), nil when HA has none.
  public func state(of entityID: String) throws -> JSONValue? {
    try states().first { $0["entity_id"]?.stringValue == entityID }
  }
  /// The device triggers HA offers for `deviceID` (what an automation's "device" trigger lists).
  public func deviceTriggers(_ deviceID: String) throws -> [JSONValue] {
    try request(["type": "device_automation/trigger/list", "device_id": deviceID]).arrayValue ?? []
  }

  /// Starts a websocket subscription (`["type": "subscribe_trigger", "trigger": ...]`);
  /// returns its id for `events`.
  public func subscribe(_ message: [String: Any]) throws -> Int {
    try send(Self.line(["subscribe": message])).integerValue ?? 0
  }

  /// The events subscription `id` received so far, oldest first.
  public func events(_ id: Int) throws -> [JSONValue] {
    try send(Self.line(["events": id])).arrayValue ?? []
  }

  /// `call_service` on `entityID`, as a dashboard card does.
  public func callService(_ domain: String, _ service: String, entityID: String, data: [String: Any] = [:]) throws {
    try request([
      "type": "call_service", "domain": domain, "service": service, "service_data": data,
      "target": ["entity_id": entityID],
    ])
  }

  /// Polls `condition` (which may ask HA) until it holds; the failure carries HA's log tail.
  public func eventually(
    _ what: @autoclosure () -> String, within seconds: Double = 120, _ condition: () throws -> Bool
  )
    throws
  {
    do {
      try PatchbayTestSupport.eventually(what(), within: seconds, pollEvery: 0.5, condition)
    } catch {
      throw Failure(description: "\(error)\nHome Assistant's log (last 150 lines):\n\(logTail())")
    }
  }

  /// The driver gives up on HA's answer after 240 s itself and says so; this waits a little longer.
  private func send(_ text: String, within seconds: Double = 300) throws -> JSONValue {
    do {
      return try Self.send(driver, text, within: seconds)
    } catch {
      throw Failure(description: "\(error)\nHome Assistant's log (last 150 lines):\n\(logTail())")
    }
  }

  private static func send(_ driver: ChildProcess, _ text: String, within seconds: Double) throws -> JSONValue {
    let before = driver.lineCount
    try driver.write(text + "\n")
    var answer: JSONValue?
    try PatchbayTestSupport.eventually("an answer to \(text); driver:\n\(driver.output)", within: seconds) {
      answer = driver.lines.dropFirst(before).lazy.compactMap(JSONValue.parse).first {
        $0["ok"] != nil || $0["error"] != nil
      }
      return answer != nil || !driver.isRunning
    }
    guard let answer else { throw Failure(description: "the driver ended:\n\(driver.output)") }
    if let error = answer["error"]?.stringValue {
      throw Failure(description: "\(text): \(error): \(answer["message"]?.stringValue ?? "")")
    }
    return answer["ok"] ?? .null
  }

  private static func line(_ command: [String: Any]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: command, options: [.sortedKeys]), as: UTF8.self)
  }
}
