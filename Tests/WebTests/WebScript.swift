import Foundation
import PatchbayTestSupport
import Testing

/// The scripts in Scripts/: most drive the page in a real browser (headless Chromium through
/// Selenium and chromedriver, Debian packages) step by step against patchbay-web.
enum WebScript {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts")
  /// Debian's python3 (the Selenium and prometheus_client packages are in its dist-packages).
  static let python = "/usr/bin/python3"

  /// Where the scripts put their pictures: `PATCHBAY_WEB_SCREENSHOTS=docs/images` updates the
  /// docs'; by default the test's own folder (checked there), so a run leaves the tree clean.
  static func screenshots(_ testFolder: String) -> String {
    ProcessInfo.processInfo.environment["PATCHBAY_WEB_SCREENSHOTS"] ?? testFolder
  }

  /// Runs the step script `NAME.py --base BASE --patchbay PATCHBAY --config CONFIG ARGUMENTS...` and expects it to
  /// exit 0 having printed `STEPS: every step passed` (STEPS: the script's name unless given).
  static func runSteps(
    _ name: String, base: String, config: String, _ arguments: [String] = [], steps: String? = nil,
    within seconds: Double = 600
  ) throws {
    let result = try runProgram(
      python,
      [
        folder.appendingPathComponent(name + ".py").path, "--base", base, "--patchbay",
        BuildProducts.executable("patchbay"), "--config", config,
      ] + arguments, within: seconds)
    print(result.output)
    #expect(result.status == 0, "\(result.output)")
    #expect(result.output.contains("\(steps ?? name): every step passed"), "\(result.output)")
  }
}
