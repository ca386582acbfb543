import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay check` on a config spread over conf.d: diagnostics point into the file they name.
@Suite(.serialized) struct ConfigFilesCheckTests {
  @Test func numbersRoutesWithinTheirOwnFile() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["example-c"])
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "example-c")
        .route(from: "counter.tick", to: "counter.increment")
        .route(from: "counter.tick", to: "counter.increment"))
    let lights = try harness.directory.write(
      "conf.d/20-lights.toml",
      HubTOML().routes(["counter.tick": "counter.increment", "counter.count": "counter.tick"]).toml)
    let result = try harness.cli("check")
    #expect(result.status == 1)
    #expect(
      result.output.contains(
        "\(lights): routes[2].to: 'counter.tick' is an output port; a route writes into input ports"),
      "\(result.output)")
    #expect(!result.output.contains("routes[4]"), "\(result.output)")
  }

  /// A conf.d file nobody can read (here a directory named like one; tests run as root, whom
  /// permission bits do not stop) hides its instances: it is reported once, and the routes of
  /// other files that name them are not reported as unknown instances.
  @Test func anUnreadableFileIsReportedOnceWithoutACascade() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["example-c"])
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "example-c"))
    let sensors = harness.directory.path + "/conf.d/10-sensors.toml"
    try FileManager.default.createDirectory(atPath: sensors, withIntermediateDirectories: true)
    try harness.directory.write(
      "conf.d/20-routes.toml",
      HubTOML()
        .routes(["porch.count": "counter.set", "counter.count": "garden.set", "counter.tick": "counter.increment"])
        .toml)
    let result = try harness.cli("check")
    #expect(result.status == 1)
    #expect(
      result.output.contains(
        "\(sensors): cannot read the file: it is a directory; 2 routes naming instances that no readable file"
          + " defines were not checked (they may be defined here)"), "\(result.output)")
    #expect(!result.output.contains("unknown instance"), "\(result.output)")
    #expect(result.output.contains("1 problem found"), "\(result.output)")
  }

  /// Whether `patchbay` runs as `nobody` here (root, setpriv, and a build tree others may read).
  static let nobodyCanRunPatchbay: Bool = {
    guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return false }
    let probe = try? runProgram(
      "/usr/bin/setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", BuildProducts.executable("patchbay"), "--version"])
    return probe?.status == 0
  }()

  /// The same for a file whose permissions keep the checking user out, checked as `nobody`.
  @Test(.enabled(if: nobodyCanRunPatchbay))
  func aFileWithoutReadPermissionIsReportedOnceWithoutACascade() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["example-c"])
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "example-c"))
    let sensors = try harness.directory.write("conf.d/10-sensors.toml", "[instances.porch]\nplugin = \"example-c\"\n")
    try harness.directory.write("conf.d/20-routes.toml", "[[routes]]\nfrom = \"porch.count\"\nto = \"counter.set\"\n")
    chmod(sensors, 0o600)
    // Everything else must be readable for nobody: the temp dir and the build products.
    for path in [harness.directory.path, harness.directory.path + "/conf.d"] { chmod(path, 0o755) }
    let result = try runProgram(
      "/usr/bin/setpriv",
      [
        "--reuid=65534", "--regid=65534", "--clear-groups", BuildProducts.executable("patchbay"), "check", "--config",
        harness.configPath,
      ])
    #expect(result.status == 1)
    #expect(
      result.output.contains(
        "\(sensors): cannot read the file: Permission denied; 1 route naming instances that no readable file"
          + " defines was not checked (they may be defined here)"), "\(result.output)")
    #expect(!result.output.contains("unknown instance"), "\(result.output)")
  }
}
