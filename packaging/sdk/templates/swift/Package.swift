// swift-tools-version:6.1
// The chime plugin, built against the Swift plugin kit of the installed patchbay-dev with
// the Swift @SWIFT_VERSION@ toolchain (the kit refuses any other: no stable ABI on Linux).
import PackageDescription

let kit = "/usr/share/patchbay/plugin-kit"

let package = Package(
  name: "patchbay-plugin-chime",
  products: [.library(name: "patchbay-plugin-chime", type: .dynamic, targets: ["Chime"])],
  dependencies: [.package(path: kit)],
  targets: [
    .target(
      name: "Chime", dependencies: [.product(name: "PatchbayPluginKit", package: "plugin-kit")],
      path: "Sources/Chime", swiftSettings: [.swiftLanguageMode(.v6)],
      // Export only the C entry symbol, so nothing in the library can clash with the host.
      linkerSettings: [.unsafeFlags(["-Xlinker", "--version-script=\(kit)/exports.map"])])
  ]
)
