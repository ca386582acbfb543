import Foundation

/// The checker's answer: per rule pass, fail or skip with the reason, as text or as JSON.
struct ConformanceReport: Sendable {
  var library: String
  var plugin: String?
  var verdicts: [ConformanceVerdict]

  var passed: Bool { !verdicts.contains { $0.outcome == .fail } }

  var text: String {
    let width = ConformanceRule.allCases.map(\.rawValue.count).max() ?? 0
    var lines = ["patchbay plugin test \(library)" + (plugin.map { " (\($0))" } ?? "")]
    for verdict in verdicts {
      let name = verdict.rule.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
      lines.append("\(verdict.outcome.rawValue.uppercased())  \(name)  \(verdict.reason)")
    }
    let count = { (outcome: ConformanceVerdict.Outcome) in self.verdicts.filter { $0.outcome == outcome }.count }
    lines.append(
      "\(verdicts.count) rules: \(count(.pass)) passed, \(count(.fail)) failed, \(count(.skip)) skipped"
        + (passed ? "" : " -- the plugin breaks the ABI's rules (patchbay/plugin.h)"))
    return lines.joined(separator: "\n")
  }

  /// `{"library", "plugin", "passed", "rules": [{"rule", "title", "outcome", "reason"}]}`.
  var json: String {
    let rules: [[String: Any]] = verdicts.map {
      ["rule": $0.rule.rawValue, "title": $0.rule.title, "outcome": $0.outcome.rawValue, "reason": $0.reason]
    }
    var object: [String: Any] = ["library": library, "passed": passed, "rules": rules]
    if let plugin { object["plugin"] = plugin }
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}
