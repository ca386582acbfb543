import PatchbayValues
import Testing

@testable import PatchbayCore

/// What the hub grants an instance by default, derived from its config (docs/configuration.md,
/// "Sandbox"), and the `sandbox` table's mistakes with file and key.
@Suite struct SandboxPolicyTests {
  func spec(_ plugin: String, _ config: [(String, JSONValue)], sandbox: SandboxSettings = SandboxSettings())
    -> InstanceSpec
  {
    InstanceSpec(
      name: "i", plugin: plugin, logLevel: "info", supervision: SupervisionSettings(), pluginConfig: .object(config),
      file: "/etc/patchbay/patchbay.toml", sandbox: sandbox)
  }

  func policy(_ spec: InstanceSpec) -> SandboxPolicy {
    SandboxPolicy(spec: spec, libraryPath: "/usr/lib/patchbay/plugins/x.so", stateDirectory: "/var/lib/patchbay/i")
  }

  @Test func portsComeFromPortKeysAndURLs() {
    #expect(policy(spec("flic", [("host", .string("127.0.0.1")), ("port", .integer(5552))])).connect == [53, 5552])
    #expect(policy(spec("flic", [("host", .string("127.0.0.1"))])).connect == [53, 5551])
    #expect(policy(spec("hue", [("bridge", .string("192.0.2.10"))])).connect == [53, 80, 443])
    #expect(policy(spec("hue", [("bridge", .string("http://127.0.0.1:8080"))])).connect == [53, 8080])
    #expect(policy(spec("hue", [("bridge", .string("127.0.0.1:8081"))])).connect == [53, 8081])
    #expect(policy(spec("homebridge-websocket", [("url", .string("ws://127.0.0.1:4050"))])).connect == [53, 4050])
    #expect(policy(spec("x", [("url", .string("wss://example.org/socket"))])).connect == [53, 443])
    #expect(policy(spec("schedule", [("latitude", .number(52.5))])).connect == [])
    #expect(policy(spec("x", [("broker", .object([("tls_port", .integer(8883))]))])).connect == [53, 8883])
    // A time of day and an IPv6 address are not ports.
    #expect(policy(spec("schedule", [("at", .string("07:30"))])).connect == [])
    #expect(policy(spec("x", [("address", .string("fe80::1"))])).connect == [])
  }

  /// A homekit bridge listens: on its `port`, else on any port (0); other plugins bind nothing.
  @Test func homekitMayListenOnItsPort() {
    #expect(policy(spec("homekit", [("port", .integer(51826))])).bind == [51826])
    #expect(policy(spec("homekit", [("name", .string("Bedroom"))])).bind == [0])
    var extra = SandboxSettings()
    extra.bind = [8080]
    #expect(policy(spec("homekit", [], sandbox: extra)).bind == [0, 8080])
    #expect(policy(spec("flic", [("port", .integer(5551))])).bind == [])
  }

  @Test func pathsInTheConfigAreReadableAndOutputsWritable() {
    let granted = policy(
      spec(
        "mqtt",
        [
          ("password_file", .string("/etc/patchbay/mqtt.password")),
          ("tls", .object([("ca_file", .string("/etc/ssl/ca.pem"))])),
          ("record", .string("/tmp/r.jsonl")),
        ]))
    #expect(granted.read == ["/usr/lib/patchbay/plugins/x.so", "/etc/patchbay/mqtt.password", "/etc/ssl/ca.pem"])
    #expect(granted.write == ["/var/lib/patchbay/i", "/tmp/r.jsonl"])
    // A Python module: its folder, which it imports from; not the hub's config folder for a file.
    let python = policy(spec("python", [("module", .string("/srv/py/doorbell.py"))]))
    #expect(python.read.contains("/srv/py"))
  }

  @Test func networkAnyAndOffReachTheHostArguments() {
    var settings = SandboxSettings()
    settings.networkAny = true
    let any = policy(spec("flic", [], sandbox: settings)).hostArguments
    #expect(any.contains("--sandbox-network") && !any.contains("--sandbox-connect"))
    settings.enabled = false
    #expect(policy(spec("flic", [], sandbox: settings)).hostArguments == ["--sandbox", "off"])
  }

  @Test func mistakesNameTheFileAndTheKey() {
    var diagnostics: [ConfigDiagnostic] = []
    let table = JSONValue.object([
      ("read", .array([.string("relative/path")])), ("connect", .array([.integer(70000)])),
      ("network", .string("all")), ("raed", .array([])),
    ])
    _ = SandboxSettings.parse(table, prefix: "instances.i.sandbox", file: "/etc/patchbay/p.toml", &diagnostics)
    let keys = diagnostics.map { $0.key ?? "" }
    #expect(
      keys == [
        "instances.i.sandbox.read", "instances.i.sandbox.connect", "instances.i.sandbox.network",
        "instances.i.sandbox.raed",
      ])
    #expect(diagnostics.allSatisfy { $0.file == "/etc/patchbay/p.toml" })
    #expect(diagnostics.last?.message.contains("read") == true)
  }
}
