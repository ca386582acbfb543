// swift-tools-version:6.1
// patchbay: a home-automation hub whose device drivers are isolated C-ABI plugins.
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

// A Swift plugin is a dynamic library that exports only the C entry symbol.
let pluginExports: [LinkerSetting] = [
  .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Plugins/exports.map"])
]
// patchbay's version for the bundled C plugins' descriptors: the same as PatchbayVersion.current
// (Sources/PatchbayValues/PatchbayVersion.swift); VersionAgreementTests checks that they agree.
let patchbayVersion = CSetting.define("PATCHBAY_VERSION", to: #""0.1.0""#)

func swiftPlugin(_ name: String, target: String) -> Product {
  .library(name: "patchbay-plugin-\(name)", type: .dynamic, targets: [target])
}

// Fuzz targets are built only for fuzzing: PATCHBAY_FUZZ=1 swift build -Xswiftc -sanitize=fuzzer,address
let fuzzing = Context.environment["PATCHBAY_FUZZ"] == "1"

let package = Package(
  name: "patchbay",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "patchbay", targets: ["PatchbayCLI"]),
    .executable(name: "patchbay-plugin-host", targets: ["PluginHost"]),
    .executable(name: "patchbay-sim", targets: ["SimulatorCLI"]),
    .library(name: "PatchbayPluginKit", targets: ["PatchbayPluginKit"]),
    .library(name: "patchbay-plugin-example-c", type: .dynamic, targets: ["ExampleCPlugin"]),
    swiftPlugin("example-swift", target: "ExampleSwiftPlugin"),
    swiftPlugin("fault", target: "FaultPlugin"),
    swiftPlugin("flic", target: "FlicPluginEntry"),
    // `patchbay flic scan|list` runs it: the hub's binary links no SwiftNIO.
    .executable(name: "patchbay-flic", targets: ["FlicTool"]),
    swiftPlugin("flic-ble", target: "FlicBLEPluginEntry"),
    // `patchbay flic-ble scan|pair|unpair|list` runs it.
    .executable(name: "patchbay-flic-ble", targets: ["FlicBLETool"]),
    swiftPlugin("homebridge-websocket", target: "HomebridgePluginEntry"),
    swiftPlugin("hue", target: "HuePluginEntry"),
    // `patchbay hue pair` runs it: the hub's binary links no HTTP client.
    .executable(name: "patchbay-hue", targets: ["HueTool"]),
    swiftPlugin("homekit", target: "HomeKitPluginEntry"),
    // `patchbay homekit setup|pairings|reset` runs it: the setup code, its QR code, the pairings.
    .executable(name: "patchbay-homekit", targets: ["HomeKitTool"]),
    swiftPlugin("homekit-controller", target: "HomeKitControllerPluginEntry"),
    // `patchbay homekit-controller discover|pair|unpair` runs it.
    .executable(name: "patchbay-homekit-controller", targets: ["HomeKitControllerTool"]),
    swiftPlugin("party-lights", target: "PartyLightsPluginEntry"),
    swiftPlugin("schedule", target: "SchedulePluginEntry"),
    swiftPlugin("mqtt", target: "MQTTPluginEntry"),
    .library(name: "patchbay-plugin-python", type: .dynamic, targets: ["PythonPlugin"]),
    .executable(name: "patchbay-bench", targets: ["PatchbayBench"]),
    .executable(name: "patchbay-web", targets: ["PatchbayWeb"]),
    // `patchbay history` runs it: the hub's binary links no SQLite.
    .executable(name: "patchbay-history", targets: ["HistoryTool"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    // Hummingbird's own dependency; named for NIOHTTPTypes (patchbay-web's request deadlines).
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    // HomeKit (HAP): X25519, Ed25519, ChaCha20-Poly1305, HKDF and SHA-512 (SRP-6a's big integers: CGMP).
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    // History (patchbay-web's recorder) in SQLite; libsqlite3-dev from Debian.
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
  ],
  targets: [
    // The HomeKit Accessory Protocol over IP, for the bridge and the controller alike: TLV8,
    // SRP-6a pair-setup, pair-verify, encrypted sessions, the HTTP framing, the accessory server.
    .target(
      name: "HAP",
      dependencies: [
        "PatchbayValues", "CGMP",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/HAP", swiftSettings: strict),
    // libgmp from Debian (libgmp-dev): SRP-6a's 3072-bit modular arithmetic, milliseconds per pair-setup
    // where a Swift big-integer library took 7–10 s in a debug build (HAPTests.SRPServerTests prints it).
    .systemLibrary(
      name: "CGMP", path: "Sources/CGMP", pkgConfig: "gmp", providers: [.apt(["libgmp-dev"])]),
    // libavahi-client from Debian (pkg-config avahi-client): the system's mDNS responder.
    .systemLibrary(
      name: "CAvahi", path: "Sources/CAvahi", pkgConfig: "avahi-client",
      providers: [.apt(["libavahi-client-dev"])]),
    // `_hap._tcp` through Avahi: advertising a bridge (its TXT record), and browsing for accessories.
    .target(
      name: "HAPDiscovery",
      dependencies: ["CAvahi", .product(name: "Logging", package: "swift-log")],
      path: "Sources/HAPDiscovery", swiftSettings: strict),
    // The plugin ABI: one C header, the single source of truth for every plugin.
    .target(name: "CPatchbayPlugin", path: "Sources/CPatchbayPlugin"),
    // Linux process controls (parent-death signal, subreaper, descendant containment) for the
    // plugin host and the hub.
    .target(name: "CProcessControl", path: "Sources/CProcessControl"),
    // The plugin host's confinement: Landlock system calls and libseccomp (Debian's libseccomp-dev).
    .target(name: "CSandbox", path: "Sources/CSandbox", linkerSettings: [.linkedLibrary("seccomp")]),
    // The hub's typed values and port descriptions.
    .target(name: "PatchbayValues", path: "Sources/PatchbayValues", swiftSettings: strict),
    // Framed, versioned messages between the hub and a plugin-host process.
    .target(
      name: "PatchbayWire", dependencies: ["PatchbayValues", "CProcessControl"], path: "Sources/PatchbayWire",
      swiftSettings: strict),
    // The hub's core, without a process or a socket: config, routes and transforms, scenes,
    // the supervisor and inboxes over `PluginChannel`, retained values, the hub itself.
    .target(
      name: "PatchbayCore",
      dependencies: [
        "PatchbayValues", "PatchbayWire", "CPatchbayPlugin",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "TOMLKit", package: "TOMLKit"),
        .product(name: "DequeModule", package: "swift-collections"),
      ],
      path: "Sources/PatchbayCore", swiftSettings: strict),
    // The hub's I/O: plugin-host processes, the control socket, systemd, logging to stderr.
    .target(
      name: "PatchbayHub",
      dependencies: [
        "PatchbayCore", "PatchbayValues", "PatchbayWire", "CProcessControl", "PatchbayPluginKit",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/PatchbayHub", swiftSettings: strict),
    .executableTarget(
      name: "PatchbayCLI",
      dependencies: [
        "PatchbayHub", "PatchbayValues", "PatchbayWire", "CProcessControl", "ChildProcesses", "CPatchbayPlugin",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/PatchbayCLI", swiftSettings: strict),
    // One process per plugin instance: loads the library, speaks the wire protocol.
    // Conversions between the hub's values and the C ABI's pb_value, checked: host and kit share them.
    .target(
      name: "PatchbayCValues", dependencies: ["CPatchbayPlugin", "PatchbayValues"], path: "Sources/PatchbayCValues",
      swiftSettings: strict),
    .executableTarget(
      name: "PluginHost",
      dependencies: [
        "CPatchbayPlugin", "CProcessControl", "CSandbox", "PatchbayValues", "PatchbayCValues", "PatchbayWire",
      ],
      path: "Sources/PluginHost", swiftSettings: strict),
    // What a Swift plugin author links: typed values and a protocol, exporting only the C ABI.
    .target(
      name: "PatchbayPluginKit", dependencies: ["CPatchbayPlugin", "PatchbayValues", "PatchbayCValues"],
      path: "Sources/PatchbayPluginKit",
      swiftSettings: strict),
    .executableTarget(
      name: "SimulatorCLI",
      dependencies: [
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        "FlicdSimulator",
        "HomebridgeSimulator",
        "HueSimulator",
        "SimulatorDemo",
      ],
      path: "Sources/Simulators/SimulatorCLI", swiftSettings: strict),
    // `patchbay-sim demo` (and `patchbay demo`, which runs it): the bedside story against the
    // simulators and a real hub, with no hardware.
    .target(
      name: "SimulatorDemo",
      dependencies: [
        "ChildProcesses", "PatchbayHub",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Sources/Simulators/Demo", swiftSettings: strict),
    // What every simulator shares: the line-protocol server of their control sockets.
    .target(
      name: "SimulatorControl",
      dependencies: [
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
      ],
      path: "Sources/Simulators/Shared", swiftSettings: strict),
    // The flicd client protocol (packet codec), pure Swift: shared by plugin, simulator and CLI.
    .target(name: "FlicProtocol", path: "Plugins/flic/Protocol", swiftSettings: strict),
    // Flic buttons through flicd: a self-healing TCP client publishing button ports.
    .target(
      name: "FlicPlugin",
      dependencies: [
        "FlicProtocol", "PatchbayPluginKit", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      path: "Plugins/flic/Plugin", swiftSettings: strict),
    .target(
      name: "FlicPluginEntry", dependencies: ["FlicPlugin"], path: "Plugins/flic/Entry", swiftSettings: strict,
      linkerSettings: pluginExports),
    // `patchbay-sim flicd`: a flicd that speaks the real protocol with simulated buttons.
    .target(
      name: "FlicdSimulator",
      dependencies: [
        "SimulatorControl",
        "FlicProtocol", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Plugins/flic/Simulator", swiftSettings: strict),
    // Pairing and listing buttons through flicd (`patchbay flic ...` runs it).
    .executableTarget(
      name: "FlicTool",
      dependencies: [
        "FlicProtocol", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
      ],
      path: "Plugins/flic/Tool", swiftSettings: strict),
    // Flic 2 over Bluetooth LE without flicd: codec, Chaskey MAC, verify crypto and the central's
    // session state machine, pure Swift (no I/O); BlueZ and the plugin come on top of it.
    .target(
      name: "FlicBLEProtocol", dependencies: [.product(name: "Crypto", package: "swift-crypto")],
      path: "Plugins/flic-ble/Protocol", swiftSettings: strict),
    // A simulated Flic 2: the button's side of the same protocol, signed by a test factory key.
    .target(
      name: "FlicBLESimulator",
      dependencies: ["FlicBLEProtocol", .product(name: "Crypto", package: "swift-crypto")],
      path: "Plugins/flic-ble/Simulator", swiftSettings: strict),
    // One simulated button on standard input/output, for centrals in other processes (pyflic-ble).
    .executableTarget(
      name: "FlicBLEButtonHost", dependencies: ["FlicBLEProtocol", "FlicBLESimulator"],
      path: "Plugins/flic-ble/SimulatorHost", swiftSettings: strict),
    // sd-bus (Debian libsystemd-dev) through pkg-config: the system bus, where BlueZ lives.
    .systemLibrary(
      name: "CSystemdBus", path: "Plugins/flic-ble/CSystemdBus", pkgConfig: "libsystemd",
      providers: [.apt(["libsystemd-dev"])]),
    // BlueZ's D-Bus API through sd-bus, and one GATT link driving a FlicBLECentral: plugin and tool share it.
    .target(
      name: "FlicBLEBlueZ", dependencies: ["CSystemdBus", "FlicBLEProtocol"], path: "Plugins/flic-ble/BlueZ",
      swiftSettings: strict),
    // Flic 2 buttons through BlueZ: one GATT link per button, presses to the flic plugin's ports.
    .target(
      name: "FlicBLEPlugin", dependencies: ["FlicBLEBlueZ", "FlicBLEProtocol", "PatchbayPluginKit"],
      path: "Plugins/flic-ble/Plugin", swiftSettings: strict),
    .target(
      name: "FlicBLEPluginEntry", dependencies: ["FlicBLEPlugin"], path: "Plugins/flic-ble/Entry",
      swiftSettings: strict, linkerSettings: pluginExports),
    // `patchbay flic-ble scan|pair|unpair|list` runs it: the protocol and the transport, not the plugin.
    .executableTarget(
      name: "FlicBLETool",
      dependencies: [
        "FlicBLEBlueZ", "FlicBLEProtocol", "PatchbayValues",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Plugins/flic-ble/Tool", swiftSettings: strict),
    // Homebridge-websocket messages, JSON coding, HAP characteristic metadata; plugin and simulator share it.
    .target(
      name: "HomebridgeProtocol", dependencies: ["PatchbayValues"], path: "Plugins/homebridge-websocket/Protocol",
      swiftSettings: strict),
    // The self-healing websocket client; its own target so tests link it without the plugin's entry symbol.
    .target(
      name: "HomebridgeConnection",
      dependencies: [
        "HomebridgeProtocol", "PatchbayPluginKit",
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
      ],
      path: "Plugins/homebridge-websocket/Connection", swiftSettings: strict),
    .target(
      name: "HomebridgePlugin", dependencies: ["PatchbayPluginKit", "HomebridgeProtocol", "HomebridgeConnection"],
      path: "Plugins/homebridge-websocket/Plugin", swiftSettings: strict),
    .target(
      name: "HomebridgePluginEntry", dependencies: ["HomebridgePlugin"], path: "Plugins/homebridge-websocket/Entry",
      swiftSettings: strict, linkerSettings: pluginExports),
    .target(
      name: "HomebridgeSimulator",
      dependencies: [
        "SimulatorControl",
        "HomebridgeProtocol", "PatchbayValues",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
      ],
      path: "Plugins/homebridge-websocket/Simulator", swiftSettings: strict),
    // Hue bridge v1 API: models, JSON, response parsing, unit conversions; shared by plugin, simulator and CLI.
    .target(name: "HueProtocol", dependencies: ["PatchbayValues"], path: "Plugins/hue/Protocol", swiftSettings: strict),
    // Hue lights and groups: config, rate-respecting command scheduler, poller, ports.
    .target(
      name: "HuePlugin",
      dependencies: [
        "HueProtocol", "PatchbayPluginKit", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
      ],
      path: "Plugins/hue/Plugin", swiftSettings: strict),
    .target(
      name: "HuePluginEntry", dependencies: ["HuePlugin"], path: "Plugins/hue/Entry", swiftSettings: strict,
      linkerSettings: pluginExports),
    // `patchbay-sim hue`: a Hue bridge speaking the v1 REST API, with its validation and rate limits.
    .target(
      name: "HueSimulator",
      dependencies: [
        "SimulatorControl",
        "HueProtocol",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      path: "Plugins/hue/Simulator", swiftSettings: strict),
    // Link-button pairing with a bridge (`patchbay hue pair` runs it).
    .executableTarget(
      name: "HueTool",
      dependencies: [
        "HueProtocol", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
      ],
      path: "Plugins/hue/Tool", swiftSettings: strict),
    // A HomeKit bridge (HAP over IP) whose bridged accessories are hub ports: config, the accessory
    // database with stable aid/iid, the identity in the state directory, the HAP server's delegate.
    // The bridge's state files (identity, pairings, ids), shared with its tool.
    .target(
      name: "HomeKitProtocol",
      dependencies: ["HAP", "PatchbayPluginKit", .product(name: "Crypto", package: "swift-crypto")],
      path: "Plugins/homekit/Protocol", swiftSettings: strict),
    .target(
      name: "HomeKitPlugin",
      dependencies: [
        "HomeKitProtocol", "HAP", "HAPDiscovery", "PatchbayPluginKit", "PatchbayValues",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Plugins/homekit/Plugin", swiftSettings: strict),
    // libqrencode from Debian (pkg-config libqrencode): the HomeKit setup QR code, drawn in the
    // terminal by patchbay-homekit and as SVG by patchbay-web.
    .systemLibrary(
      name: "CQREncode", path: "Sources/CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
    .target(name: "QRMatrix", dependencies: ["CQREncode"], swiftSettings: strict),
    // The setup code and QR, the pairings and a deliberate reset, on the instance's state directory.
    .executableTarget(
      name: "HomeKitTool",
      dependencies: [
        "HomeKitProtocol", "HAP", "QRMatrix", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Plugins/homekit/Tool", swiftSettings: strict),
    .target(
      name: "HomeKitPluginEntry", dependencies: ["HomeKitPlugin"], path: "Plugins/homekit/Entry",
      swiftSettings: strict, linkerSettings: pluginExports),
    // A HomeKit controller: pairs with accessories a house already has and makes their services
    // ports. The pairing store (controller.json, the cached /accessories) is shared with its tool.
    // The pairing store and the mapping of an accessory database to ports, shared with its tool.
    .target(
      name: "HomeKitControllerProtocol",
      dependencies: ["HAP", "PatchbayPluginKit", "PatchbayValues", .product(name: "Crypto", package: "swift-crypto")],
      path: "Plugins/homekit-controller/Protocol", swiftSettings: strict),
    .target(
      name: "HomeKitControllerPlugin",
      dependencies: [
        "HomeKitControllerProtocol", "HAP", "HAPDiscovery", "PatchbayPluginKit", "PatchbayValues",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Plugins/homekit-controller/Plugin", swiftSettings: strict),
    .target(
      name: "HomeKitControllerPluginEntry", dependencies: ["HomeKitControllerPlugin"],
      path: "Plugins/homekit-controller/Entry", swiftSettings: strict, linkerSettings: pluginExports),
    .executableTarget(
      name: "HomeKitControllerTool",
      dependencies: [
        "HomeKitControllerProtocol", "HAP", "HAPDiscovery", .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Plugins/homekit-controller/Tool", swiftSettings: strict),
    // The party effect as a pure plan (colors per step, rates, restore), its config and saved record.
    .target(
      name: "PartyLightsProtocol", dependencies: ["PatchbayPluginKit"], path: "Plugins/party-lights/Protocol",
      swiftSettings: strict),
    // The plugin glue: ports, timers, capture and restore.
    .target(
      name: "PartyLightsPlugin", dependencies: ["PartyLightsProtocol", "PatchbayPluginKit"],
      path: "Plugins/party-lights/Plugin", swiftSettings: strict),
    .target(
      name: "PartyLightsPluginEntry", dependencies: ["PartyLightsPlugin"], path: "Plugins/party-lights/Entry",
      swiftSettings: strict, linkerSettings: pluginExports),
    // Clock time as pure values: cron, the NOAA sun, time zones and DST, catch-up planning, config, saved state.
    .target(
      name: "ScheduleProtocol", dependencies: ["PatchbayPluginKit"], path: "Plugins/schedule/Protocol",
      swiftSettings: strict),
    // The plugin glue: one trigger port per configured trigger, a kit timer re-armed after each wake.
    .target(
      name: "SchedulePlugin", dependencies: ["ScheduleProtocol", "PatchbayPluginKit"], path: "Plugins/schedule/Plugin",
      swiftSettings: strict),
    .target(
      name: "SchedulePluginEntry", dependencies: ["SchedulePlugin"], path: "Plugins/schedule/Entry",
      swiftSettings: strict, linkerSettings: pluginExports),
    // libmosquitto (Debian libmosquitto-dev) through pkg-config: the MQTT 3.1.1/5 client, no codec of our own.
    .systemLibrary(
      name: "CMosquitto", path: "Plugins/mqtt/CMosquitto", pkgConfig: "libmosquitto",
      providers: [.apt(["libmosquitto-dev"])]),
    // Config, topic filters, payload formats, Zigbee2MQTT and Home Assistant mappings: pure Swift, testable alone.
    .target(
      name: "MQTTProtocol", dependencies: ["PatchbayPluginKit", "PatchbayValues"], path: "Plugins/mqtt/Protocol",
      swiftSettings: strict),
    // The plugin glue: the libmosquitto connection on its own thread, subscriptions to ports, ports to publishes.
    .target(
      name: "MQTTPlugin", dependencies: ["CMosquitto", "MQTTProtocol", "PatchbayPluginKit"],
      path: "Plugins/mqtt/Plugin",
      swiftSettings: strict),
    .target(
      name: "MQTTPluginEntry", dependencies: ["MQTTPlugin"], path: "Plugins/mqtt/Entry", swiftSettings: strict,
      linkerSettings: pluginExports),
    // CPython's embedding API (Debian libpython3-dev) through pkg-config python3-embed.
    .systemLibrary(
      name: "CPython", path: "Plugins/python/CPython", pkgConfig: "python3-embed",
      providers: [.apt(["libpython3-dev"])]),
    // A plugin instance written in Python: one embedded interpreter per instance, in C (no Swift runtime).
    .target(
      name: "PythonPlugin", dependencies: ["CPatchbayPlugin", "CPython"], path: "Plugins/python/Plugin",
      publicHeadersPath: ".", cSettings: [.unsafeFlags(["-Wall", "-Wextra"]), patchbayVersion],
      linkerSettings: pluginExports),
    // `patchbay-bench` (scripts/bench): every figure against a baseline measured in the same run. Its C
    // probes in Sources/Benchmarks/Probes are compiled by gcc at benchmark time, not by SwiftPM.
    .executableTarget(
      name: "PatchbayBench",
      dependencies: [
        // PatchbayTestSupport: the cached Python environments of the HomeKit section's peers.
        "PatchbayHub", "ChildProcesses", "PatchbayTestSupport", "PatchbayRecorder",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ],
      path: "Sources/Benchmarks/Bench", swiftSettings: strict),
    // History of port values in SQLite (GRDB): a bounded queue and a writer thread, retention, a size
    // cap, per-minute downsampling; patchbay-web records, `patchbay history` reads.
    .target(
      name: "PatchbayRecorder",
      dependencies: [
        "PatchbayValues", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "DequeModule", package: "swift-collections"),
      ],
      path: "Sources/PatchbayRecorder", swiftSettings: strict),
    .executableTarget(
      name: "HistoryTool",
      dependencies: [
        "PatchbayRecorder", "PatchbayValues", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Sources/HistoryTool", swiftSettings: strict),
    // `patchbay-web`: the dashboard and /metrics, its own process; it reaches the hub only through the
    // control socket, so a fault or load in it cannot take the hub down (docs/web.md).
    .executableTarget(
      name: "PatchbayWeb",
      dependencies: [
        "PatchbayHub", "QRMatrix", "PatchbayRecorder",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      path: "Sources/PatchbayWeb", exclude: ["Page/static"], swiftSettings: strict),

    // One wrapper for the programs that tests, the demo, the bench and the CLI's TOML parse child
    // start, on swift-subprocess (pidfd and waitid(P_PID): no SIGCHLD handler, no SwiftNIO):
    // output line by line, stdin, SIGTERM then SIGKILL, exit status.
    .target(
      name: "ChildProcesses", dependencies: [.product(name: "Subprocess", package: "swift-subprocess")],
      path: "Sources/ChildProcesses", swiftSettings: strict),
    // Helpers for tests that run real processes: waiting with deadlines, temp dirs, products,
    // aiohomekit as a HomeKit controller (Scripts/aiohomekit_controller.py).
    .target(
      name: "PatchbayTestSupport", dependencies: ["ChildProcesses", "PatchbayValues"],
      path: "Sources/PatchbayTestSupport", exclude: ["Scripts"], swiftSettings: strict),

    // Example and test plugins.
    .target(
      name: "ExampleCPlugin", dependencies: ["CPatchbayPlugin"], path: "Plugins/example-c", publicHeadersPath: ".",
      cSettings: [patchbayVersion]),
    .target(
      name: "ExampleSwiftPlugin", dependencies: ["PatchbayPluginKit"], path: "Plugins/example-swift",
      swiftSettings: strict, linkerSettings: pluginExports),
    .target(
      name: "FaultPlugin", dependencies: ["PatchbayPluginKit"], path: "Plugins/fault", swiftSettings: strict,
      linkerSettings: pluginExports),

    .testTarget(
      name: "PatchbayValuesTests", dependencies: ["PatchbayValues"], swiftSettings: strict),
    .testTarget(
      name: "PatchbayWireTests", dependencies: ["PatchbayWire", "PatchbayValues"], swiftSettings: strict),
    .testTarget(
      name: "PatchbayPluginKitTests", dependencies: ["PatchbayPluginKit", "CPatchbayPlugin"], swiftSettings: strict),
    .testTarget(
      name: "PatchbayHubTests",
      dependencies: ["PatchbayHub", "PatchbayCore", "PatchbayValues", "PatchbayWire", "PatchbayTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "IntegrationTests", dependencies: ["PatchbayHub", "PatchbayValues", "PatchbayWire", "PatchbayTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "FlicTests",
      dependencies: [
        "FlicProtocol", "FlicdSimulator", "FlicPlugin", "PatchbayPluginKit", "PatchbayTestSupport",
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "FlicBLETests",
      dependencies: [
        "FlicBLEProtocol", "FlicBLESimulator", "FlicBLEBlueZ", "FlicBLEPlugin", "PatchbayTestSupport",
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      exclude: ["Vectors", "Scripts"], swiftSettings: strict),
    .testTarget(
      name: "HomebridgeTests",
      dependencies: [
        "HomebridgeProtocol", "HomebridgeConnection", "HomebridgePlugin", "PatchbayTestSupport", "PatchbayValues",
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "HueTests",
      dependencies: [
        "HueProtocol", "HuePlugin", "HueSimulator", "PatchbayPluginKit", "PatchbayHub", "PatchbayTestSupport",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "PartyLightsTests", dependencies: ["PartyLightsProtocol", "PatchbayPluginKit", "PatchbayTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "ScheduleTests", dependencies: ["ScheduleProtocol", "PatchbayPluginKit", "PatchbayTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "MQTTTests",
      dependencies: ["MQTTProtocol", "MQTTPlugin", "PatchbayPluginKit", "PatchbayHub", "PatchbayTestSupport"],
      swiftSettings: strict),
    .testTarget(name: "PythonPluginTests", dependencies: ["PatchbayTestSupport"], swiftSettings: strict),
    // `patchbay plugin test` on fixtures that each break one ABI rule (compiled with gcc) and on the bundled plugins.
    .testTarget(
      name: "ConformanceTests", dependencies: ["PatchbayTestSupport"], exclude: ["Fixtures"], swiftSettings: strict),
    // A real hub and a real patchbay-web over HTTP (curl) and headless Chromium.
    // Its Scripts drive Chromium through Selenium and parse /metrics with prometheus_client (python3).
    // HAP against a real controller (aiohomekit from PyPI, in a cached virtual environment).
    .testTarget(
      name: "HAPTests",
      dependencies: [
        "HAP", "PatchbayTestSupport", "ChildProcesses", .product(name: "NIOPosix", package: "swift-nio"),
      ], exclude: ["Scripts"], swiftSettings: strict),
    // The homekit bridge plugin: config, accessory database, stable ids, identity store, values.
    .testTarget(
      name: "HomeKitTests",
      dependencies: ["HomeKitPlugin", "HomeKitProtocol", "HAP", "PatchbayPluginKit", "PatchbayTestSupport"],
      swiftSettings: strict),
    // The homekit-controller plugin and its tool against HAP-python (PyPI) and patchbay's own bridge.
    .testTarget(
      name: "HomeKitControllerTests",
      dependencies: [
        "HomeKitControllerPlugin", "HomeKitControllerProtocol", "HAP", "HAPDiscovery", "PatchbayPluginKit",
        "PatchbayValues", "PatchbayTestSupport",
        "ChildProcesses", .product(name: "NIOPosix", package: "swift-nio"),
      ],
      swiftSettings: strict),
    // Advertising through a real avahi-daemon on a D-Bus system bus of the test's own.
    .testTarget(
      name: "HAPDiscoveryTests", dependencies: ["HAPDiscovery", "PatchbayTestSupport"], swiftSettings: strict),
    // The recorder on real files: a simulated week (an injected clock), retention, downsampling.
    .testTarget(
      name: "RecorderTests", dependencies: ["PatchbayRecorder", "PatchbayValues", "PatchbayTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "WebTests", dependencies: ["PatchbayTestSupport", "PatchbayValues"], exclude: ["Scripts"],
      swiftSettings: strict),
  ]
)

if fuzzing {
  package.targets.append(
    .executableTarget(
      name: "ConfigFuzzer", dependencies: ["PatchbayHub"], path: "Fuzz/config",
      exclude: ["run-fuzz"], swiftSettings: strict))
  package.targets.append(
    .executableTarget(
      name: "HAPFuzzer", dependencies: ["HAP"], path: "Fuzz/hap", exclude: ["run-fuzz"], swiftSettings: strict))
  package.targets.append(
    .executableTarget(
      name: "FlicBLEFuzzer", dependencies: ["FlicBLEProtocol", "FlicBLESimulator"], path: "Plugins/flic-ble/Fuzz",
      exclude: ["run-fuzz"], swiftSettings: strict))
}

// The Debian packages' release build (packaging/debian/rules sets PATCHBAY_PACKAGING=1) builds only
// what they ship: not the benchmark, the example and fault plugins, the tests or their support.
if Context.environment["PATCHBAY_PACKAGING"] == "1" {
  let unshippedTargets: Set = [
    "PatchbayBench", "PatchbayTestSupport", "ExampleCPlugin", "ExampleSwiftPlugin", "FaultPlugin",
  ]
  package.targets.removeAll { $0.type == .test || unshippedTargets.contains($0.name) }
  // And the products made of those targets.
  package.products.removeAll { product in
    let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
    return targets.contains(where: unshippedTargets.contains)
  }
}
