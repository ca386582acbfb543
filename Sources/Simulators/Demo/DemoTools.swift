import Foundation

/// The programs the demo runs: this `patchbay-sim` and the `patchbay` beside it (both in
/// .build/debug after `swift build`, both in /usr/bin when installed).
struct DemoTools {
  let patchbay: String
  let simulator: String

  init() throws {
    let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    simulator = own
    let beside = (own as NSString).deletingLastPathComponent + "/patchbay"
    let candidates = [beside, "/usr/bin/patchbay"]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
      throw DemoError(
        "the demo runs the hub, and patchbay was not found (looked in \(candidates.joined(separator: ", "))); "
          + "build it with `swift build` or install the package patchbay")
    }
    patchbay = found
  }
}
