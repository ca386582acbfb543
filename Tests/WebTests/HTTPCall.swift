import Foundation
import PatchbayTestSupport

/// One HTTP request through curl (a real client over a real socket): status and body.
struct HTTPCall {
  var status: Int
  var body: String

  /// `curl` with `arguments` added (headers, `--data`, cookie jar); the status is read from curl's
  /// own `-w` line, last in the output.
  static func run(_ url: String, _ arguments: [String] = []) throws -> HTTPCall {
    let result = try runProgram(
      "/usr/bin/env", ["curl", "-s", "-S", "--max-time", "30", "-w", "\n%{http_code}\n"] + arguments + [url],
      within: 60)
    var lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let code = Int(lines.popLast() ?? "") ?? 0
    return HTTPCall(status: code, body: lines.joined(separator: "\n"))
  }

  static func get(_ url: String, _ arguments: [String] = []) throws -> HTTPCall { try run(url, arguments) }

  static func post(_ url: String, json: String, _ arguments: [String] = []) throws -> HTTPCall {
    try run(url, ["-X", "POST", "-H", "Content-Type: application/json", "--data", json] + arguments)
  }

  /// The body as a JSON object.
  var object: [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
  }

  /// The CSRF value patchbay-web gives its page.
  static func csrf(_ base: String, _ arguments: [String] = []) throws -> String {
    try get(base + "/api/session", arguments).object["csrf"] as? String ?? ""
  }
}
