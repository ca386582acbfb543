import PatchbayPluginKit

/// How to reach the broker and who to be there.
///
/// ```toml
/// host = "127.0.0.1"
/// port = 1883                      # default 1883, 8883 with [tls]
/// protocol = "3.1.1"               # or "5"
/// client_id = "patchbay-mqtt"      # default patchbay-INSTANCE
/// keepalive_s = 30
/// base_topic = "patchbay/mqtt"     # default patchbay/INSTANCE; BASE/status is online/offline
/// username = "hub"
/// password_file = "/etc/patchbay/mqtt.password"   # first line; never logged
/// clean_session = true             # false: the broker keeps subscriptions and QoS 1 messages
/// [instances.mqtt.tls]
/// ca_file = "/etc/ssl/certs/ca-certificates.crt"
/// cert_file = "client.crt"         # optional client certificate and key
/// key_file = "client.key"
/// verify = true                    # check the broker's certificate and host name (default)
/// ```
public struct BrokerSettings: Sendable, Equatable {
  public enum ProtocolVersion: String, Sendable {
    case v311 = "3.1.1"
    case v5 = "5"
  }

  public struct TLS: Sendable, Equatable {
    public var caFile: String?
    public var caPath: String?
    public var certFile: String?
    public var keyFile: String?
    public var verify = true
  }

  public var host = ""
  public var port = 1883
  public var protocolVersion = ProtocolVersion.v311
  public var clientID: String?
  public var keepaliveSeconds = 30
  public var baseTopic: String?
  public var username: String?
  public var passwordFile: String?
  public var cleanSession = true
  public var tls: TLS?
  public var maxPayloadBytes = 256 * 1024
  public var retryInitialSeconds = 0.5
  public var retryMaxSeconds = 30.0

  public init() {}

  /// The client id and base topic for an instance, with their defaults filled in. The
  /// defaults carry the hub (`hub_name`, else the kept hub id): two hubs whose instances share
  /// a name must not take each other's connection or status topic on one broker.
  public func clientID(instance: String, hub: String? = nil, hubID: String? = nil) -> String {
    clientID ?? "patchbay-" + [hub ?? hubID, instance].compactMap { $0 }.joined(separator: "-")
  }
  public func baseTopic(instance: String, hubID: String? = nil) -> String {
    baseTopic ?? "patchbay/" + [hubID, instance].compactMap { $0 }.joined(separator: "/")
  }
}

extension BrokerSettings.TLS: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case caFile = "ca_file"
    case caPath = "ca_path"
    case certFile = "cert_file"
    case keyFile = "key_file"
    case verify
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    caFile = try table.decodeIfPresent(String.self, forKey: .caFile)
    caPath = try table.decodeIfPresent(String.self, forKey: .caPath)
    certFile = try table.decodeIfPresent(String.self, forKey: .certFile)
    keyFile = try table.decodeIfPresent(String.self, forKey: .keyFile)
    verify = try table.decodeIfPresent(Bool.self, forKey: .verify) ?? true
    if caFile == nil && caPath == nil {
      throw decoder.mistake("ca_file", "(or ca_path) is needed to check the broker's certificate")
    }
    if (certFile == nil) != (keyFile == nil) {
      throw decoder.mistake("cert_file", "and key_file go together (a client certificate and its key)")
    }
  }
}
