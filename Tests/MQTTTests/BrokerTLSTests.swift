import Foundation
import PatchbayTestSupport
import Testing

/// TLS to a broker with a certificate from a test CA: verified by default, refused when the CA
/// is another one, accepted then only with `verify = false`.
@Suite(.serialized) struct BrokerTLSTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt-tls") }

  func openssl(_ arguments: [String]) throws {
    let run = try helperProcess("/usr/bin/openssl", arguments)
    let status = try run.waitForExit(within: 60)
    if status != 0 { throw TestSetupError("openssl \(arguments.first ?? "") failed: \(run.output)") }
  }

  /// A CA named `name` (NAME.crt, NAME.key) in the test directory.
  func makeCA(_ name: String) throws {
    let base = directory.path + "/" + name
    try openssl([
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key", "-out", base + ".crt", "-days", "2",
      "-subj", "/CN=patchbay test \(name)",
    ])
  }

  /// A TLS broker whose certificate (for 127.0.0.1 and localhost) the CA `ca` signed.
  func tlsBroker() throws -> MosquittoBroker {
    try makeCA("ca")
    let path = directory.path
    try openssl([
      "req", "-newkey", "rsa:2048", "-nodes", "-keyout", path + "/server.key", "-out", path + "/server.csr", "-subj",
      "/CN=localhost",
    ])
    let extensions = try directory.write("server.ext", "subjectAltName = IP:127.0.0.1, DNS:localhost\n")
    try openssl([
      "x509", "-req", "-in", path + "/server.csr", "-CA", path + "/ca.crt", "-CAkey", path + "/ca.key",
      "-CAcreateserial", "-out", path + "/server.crt", "-days", "2", "-extfile", extensions,
    ])
    // Readable by the mosquitto user the broker drops to when started as root.
    for file in ["ca.crt", "server.crt", "server.key"] {
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + "/" + file)
    }
    return try MosquittoBroker(
      directory: directory,
      listenerOptions: "cafile \(path)/ca.crt\ncertfile \(path)/server.crt\nkeyfile \(path)/server.key")
  }

  func hub(_ broker: MosquittoBroker, ca: String, verify: Bool? = nil) throws -> MQTTHub {
    try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(port: broker.port, ["retry_max_s": 1])
        .table(
          "instances.mqtt.tls",
          [("ca_file", "\(directory.path)/\(ca).crt")] + (verify.map { [("verify", .bool($0))] } ?? [])))
  }

  @Test func aBrokerCertificateFromTheConfiguredCAIsAccepted() throws {
    let broker = try tlsBroker()
    let hub = try hub(broker, ca: "ca")
    try hub.process.waitForLine(containing: "(TLS)", within: 60)
    try hub.waitConnected()
  }

  @Test func aCertificateFromAnotherCAIsRefusedUnlessVerificationIsOff() throws {
    let broker = try tlsBroker()
    try makeCA("other")
    var hub: MQTTHub? = try self.hub(broker, ca: "other")
    try eventually("refused and retried; output:\n\(hub?.process.output ?? "")", within: 60) {
      (hub?.process.lines.filter { $0.contains("not reachable") }.count ?? 0) >= 2
    }
    let refusedLog = hub?.process.output ?? ""
    print("TLS refusal as logged: \(refusedLog.split(separator: "\n").first { $0.contains("not reachable") } ?? "")")
    #expect(!refusedLog.contains("connected to 127.0.0.1"))
    #expect(refusedLog.contains("certificate verify failed"), "OpenSSL's reason is logged")
    try hub?.process.terminate(within: 60)
    hub = nil

    let unchecked = try self.hub(broker, ca: "other", verify: false)
    try unchecked.waitConnected()
  }
}
