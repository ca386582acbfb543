import Foundation
import PatchbayValues

/// What an example-swift probe recorded (`HubTOML.probe(record:)`): one JSON line per value it
/// received, `{"port":"NAME","value":VALUE}`, oldest first. Read anew on each call, so a test
/// can wait on it with `eventually`.
public struct ProbeRecord: Sendable {
  public let path: String

  public init(path: String) { self.path = path }

  /// Every line so far; none while the file is absent.
  public var lines: [String] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// The values recorded on `port`, as the JSON text the probe wrote.
  public func texts(_ port: String) -> [String] {
    let prefix = "{\"port\":\"\(port)\",\"value\":"
    return lines.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count).dropLast()) }
  }

  /// The values recorded on `port`, parsed.
  public func values(_ port: String) -> [JSONValue] {
    lines.compactMap { JSONValue.parse($0) }.filter { $0["port"] == .string(port) }.compactMap { $0["value"] }
  }

  /// The button actions recorded on `port` (`{"action":"click",...}` values).
  public func actions(_ port: String) -> [String] {
    texts(port).compactMap { value in
      guard let range = value.range(of: #""action":""#) else { return nil }
      return String(value[range.upperBound...].prefix { $0 != "\"" })
    }
  }
}

extension HubUnderTest {
  /// The probe whose record is `probe.jsonl` in the hub's directory (the usual place).
  public var probe: ProbeRecord { ProbeRecord(path: path + "/probe.jsonl") }
}
