import Foundation
import PatchbayHub

/// Runs `patchbay check` on a config file in a child process. Reload uses it before the
/// running hub reads the file itself: the TOML parser (toml++) can abort on some malformed
/// input (found by the config fuzzer), and a reload must never take the hub down.
enum IsolatedCheck {
  /// nil when the config is good; otherwise the messages to refuse the reload with.
  static func problems(in configFile: String) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    process.arguments = ["check", "--config", configFile]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do {
      try process.run()
    } catch {
      return "cannot run `patchbay check`: \(error)"
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    if process.terminationReason == .uncaughtSignal {
      return
        "\(configFile): the config parser crashed on this file (signal \(process.terminationStatus)); fix its syntax"
    }
    return process.terminationStatus == 0 ? nil : output.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The whole reload: check in a child, then load and apply.
  static func reload(_ hub: Hub, configFile: String) -> Result<ReloadSummary, ConfigErrors> {
    if let problems = problems(in: configFile) {
      return .failure(ConfigErrors([ConfigDiagnostic(file: configFile, message: "\n" + problems)]))
    }
    switch ConfigLoader().load(mainFile: configFile) {
    case .failure(let errors): return .failure(errors)
    case .success(let config): return .success(hub.reload(checked: config))
    }
  }
}
