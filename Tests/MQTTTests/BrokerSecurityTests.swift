import Foundation
import PatchbayTestSupport
import Testing

/// A broker that wants a username and password: the password comes from its file, reaches
/// the broker, and never the log; a wrong one is refused and retried.
@Suite(.serialized) struct BrokerSecurityTests {
  static let password = "s3cret-Pa55word-never-logged"
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt-auth") }

  func passwordBroker() throws -> MosquittoBroker {
    let file = try directory.write("mosquitto.passwd", "")
    let made = try helperProcess("/usr/bin/mosquitto_passwd", ["-b", file, "hub", Self.password])
    #expect(try made.waitForExit(within: 30) == 0, "\(made.output)")
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
    return try MosquittoBroker(directory: directory, listenerOptions: "allow_anonymous false\npassword_file \(file)")
  }

  @Test func aPasswordFromItsFileLogsInAndIsNeverLogged() throws {
    let broker = try passwordBroker()
    let passwordFile = try directory.write("hub.password", Self.password + "\n")
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(
        port: broker.port, ["protocol": "5", "username": "hub", "password_file": .string(passwordFile)]))
    try hub.waitConnected()
    #expect(hub.process.output.contains("(MQTT 5)"))
    try hub.process.terminate(within: 60)
    #expect(!hub.process.output.contains(Self.password), "the password reached the log")
    let brokerLog = broker.process?.output ?? ""
    #expect(brokerLog.contains("u'hub'"), "the broker saw the username: \(brokerLog)")
    #expect(!brokerLog.contains(Self.password))
  }

  @Test func aWrongPasswordIsRefusedAndRetriedWithBackOff() throws {
    let broker = try passwordBroker()
    let passwordFile = try directory.write("wrong.password", "not-the-password")
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(
        port: broker.port, ["username": "hub", "password_file": .string(passwordFile), "retry_max_s": 1]))
    try eventually("refusals, retried; output:\n\(hub.process.output)", within: 60) {
      hub.process.lines.filter { $0.contains("the broker refused the connection: Connection Refused: not authorised") }
        .count >= 2 && hub.process.lines.contains { $0.contains("next try in") }
    }
    #expect(!hub.process.lines.contains { $0.contains("connected to 127.0.0.1") })
    #expect(!hub.process.output.contains("not-the-password"))
    #expect(hub.process.isRunning)
  }

  @Test func aMissingPasswordFileFailsTheStartNamingTheFile() throws {
    let broker = try MosquittoBroker(directory: directory)
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(
        port: broker.port, ["username": "hub", "password_file": "\(directory.path)/absent.password"]))
    try hub.process.waitForLine(
      containing: "password_file '\(directory.path)/absent.password' cannot be read", within: 60)
  }
}
