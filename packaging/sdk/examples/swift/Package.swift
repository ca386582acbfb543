// swift-tools-version:6.1
// The buzzer plugin of plugin-authors.md, built against the Swift plugin kit of the installed
// patchbay-dev (`pkg-config --variable=swift_plugin_kit patchbay-plugin`), with the Swift
// toolchain the hub was built with (`pkg-config --variable=swift_version patchbay-plugin`).
import PackageDescription

let kit = "/usr/share/patchbay/plugin-kit"

let package = Package(
  name: "patchbay-plugin-buzzer",
  products: [.library(name: "patchbay-plugin-buzzer", type: .dynamic, targets: ["Buzzer"])],
  dependencies: [.package(path: kit)],
  targets: [
    .target(
      name: "Buzzer", dependencies: [.product(name: "PatchbayPluginKit", package: "plugin-kit")],
      swiftSettings: [.swiftLanguageMode(.v6)],
      // Export only the C entry symbol, so nothing in the library can clash with the host.
      linkerSettings: [.unsafeFlags(["-Xlinker", "--version-script=\(kit)/exports.map"])])
  ]
)
