import Foundation
import PatchbayHub
import PatchbayTestSupport
import Testing

/// patchbay has one version (`PatchbayVersion`, shown as `HubVersion.current`): the Debian
/// changelog, the man pages, Package.swift's define for the C plugins and every bundled
/// plugin's descriptor (MQTT discovery's `sw_version` comes from it) say the same.
@Suite struct VersionAgreementTests {
  static let root = HubUnderTest.repositoryRoot
  static let bundled = [
    "example-c", "example-swift", "fault", "flic", "homebridge-websocket", "hue", "mqtt", "party-lights", "python",
    "schedule",
  ]

  @Test func theDebianChangelogNamesTheHubVersion() throws {
    let changelog = try String(contentsOfFile: Self.root + "/packaging/debian/changelog", encoding: .utf8)
    let first = try #require(changelog.split(separator: "\n").first)
    // `patchbay (0.1.0) unstable; ...`, or with a Debian revision `(0.1.0-2)`.
    let version = first.split(separator: "(").dropFirst().first?.split(separator: ")").first ?? ""
    #expect(version.split(separator: "-").first.map(String.init) == HubVersion.current, "\(first)")
  }

  @Test func everyManPageNamesTheHubVersion() throws {
    let folder = Self.root + "/packaging/man"
    let pages = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    #expect(pages.count >= 4)
    for page in pages {
      let text = try String(contentsOfFile: folder + "/" + page, encoding: .utf8)
      let header = text.split(separator: "\n").first { $0.hasPrefix(".TH ") } ?? ""
      #expect(header.contains("\"patchbay \(HubVersion.current)\""), "\(page): \(header)")
    }
  }

  @Test func theCPluginsDefineTheHubVersion() throws {
    let manifest = try String(contentsOfFile: Self.root + "/Package.swift", encoding: .utf8)
    let define = manifest.split(separator: "\n").first { $0.contains("define(\"PATCHBAY_VERSION\"") } ?? ""
    #expect(define.contains("#\"\"" + HubVersion.current + "\"\"#"), "\(define)")
  }

  @Test func everyBundledPluginCarriesTheHubVersion() throws {
    let harness = try HubUnderTest("patchbay-versions", plugins: Self.bundled)
    try harness.writeConfig("")
    let plugins = try harness.cli("plugins")
    #expect(plugins.status == 0, "\(plugins.output)")
    for name in Self.bundled {
      #expect(plugins.output.contains("\(name) \(HubVersion.current) (ABI"), "\(name): \(plugins.output)")
    }
  }
}
