import Foundation

/// The programs the demo runs: this `patchbay` and `patchbay-sim` beside it (a `swift build`
/// tree) or in the installed layout.
struct DemoTools {
  let patchbay: String
  let simulator: String

  init() throws {
    let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    patchbay = own
    let directory = (own as NSString).deletingLastPathComponent
    let candidates = [directory + "/patchbay-sim", "/usr/lib/patchbay/patchbay-sim", "/usr/bin/patchbay-sim"]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
      throw DemoError(
        "patchbay-sim not found (looked in \(candidates.joined(separator: ", "))); build it with `swift build`")
    }
    simulator = found
  }
}
