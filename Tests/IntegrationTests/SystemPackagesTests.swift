import ChildProcesses
import Foundation
import PatchbayTestSupport
import Testing

/// `scripts/system-packages`, the one list of the system packages patchbay needs, and
/// `scripts/bootstrap`, which installs what a machine lacks of it (the README's commands call it).
@Suite struct SystemPackagesTests {
  static let root = HubUnderTest.repositoryRoot
  static let bootstrap = root + "/scripts/bootstrap"

  /// The list's packages by group, from the file itself.
  static func groups() throws -> [String: Set<String>] {
    let text = try String(contentsOfFile: root + "/scripts/system-packages", encoding: .utf8)
    var groups: [String: Set<String>] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 2 else { continue }
      for group in fields[1].split(separator: ",") { groups[String(group), default: []].insert(String(fields[0])) }
    }
    return groups
  }

  /// The package names in debian/control's Build-Depends (versions, alternatives' others and
  /// comment lines left out; debhelper-compat is debhelper's).
  static func buildDepends() throws -> Set<String> {
    let control = try String(contentsOfFile: root + "/packaging/debian/control", encoding: .utf8)
    var field = ""
    var inField = false
    for line in control.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("#") { continue }
      if line.hasPrefix("Build-Depends:") {
        inField = true
        field += line.dropFirst("Build-Depends:".count) + ","
      } else if inField, line.hasPrefix(" ") || line.hasPrefix("\t") {
        field += line + ","
      } else {
        inField = false
      }
    }
    var names: Set<String> = []
    for entry in field.split(separator: ",") {
      let first = entry.split(separator: "|")[0].trimmingCharacters(in: .whitespaces)
      guard let name = first.split(separator: " ").first.map(String.init) else { continue }
      names.insert(name == "debhelper-compat" ? "debhelper" : name)
    }
    return names
  }

  @Test func buildDependsAreInThePackageGroupAndTheBuildGroupIsInBuildDepends() throws {
    let groups = try Self.groups()
    let buildDepends = try Self.buildDepends()
    #expect(buildDepends.contains("libmosquitto-dev"), "Build-Depends as read: \(buildDepends.sorted())")
    let package = groups["package"] ?? []
    for name in buildDepends.sorted() {
      #expect(
        package.contains(name), "Build-Depends names \(name): scripts/system-packages must list it in group package")
    }
    // What the build needs, dpkg-buildpackage needs: Build-Depends or build-essential (which
    // Build-Depends never names: gcc, g++, libc6-dev, make, dpkg-dev).
    let buildEssential: Set<String> = ["build-essential", "gcc", "g++", "libc6-dev", "make", "dpkg-dev"]
    for name in (groups["build"] ?? []).sorted() {
      #expect(
        buildDepends.contains(name) || buildEssential.contains(name),
        "scripts/system-packages lists \(name) in group build: packaging/debian/control's Build-Depends must name it")
    }
  }

  /// Every system library target's apt provider in Package.swift is in the build group.
  @Test func packageSwiftsAptProvidersAreInTheBuildGroup() throws {
    let manifest = try String(contentsOfFile: Self.root + "/Package.swift", encoding: .utf8)
    let build = try Self.groups()["build"] ?? []
    var providers: [String] = []
    var rest = manifest[...]
    while let start = rest.range(of: ".apt([") {
      let tail = rest[start.upperBound...]
      guard let end = tail.firstIndex(of: "]") else { break }
      providers += tail[..<end].split(separator: ",").map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
      }
      rest = tail[end...]
    }
    #expect(providers.contains("libmosquitto-dev"), "providers as read: \(providers)")
    for name in providers {
      #expect(build.contains(name), "Package.swift's provider \(name) is not in scripts/system-packages' group build")
    }
  }

  // MARK: scripts/bootstrap against a pretend dpkg and apt

  /// A machine's package tools as shell scripts: `dpkg-query` answers from `installed` (one
  /// name a line), `apt-get` records each call in `calls` and, for a real install, adds the
  /// packages to `installed`; a simulated install prints `plan` (apt's `Inst` lines) if present.
  final class PretendApt: Sendable {
    let directory: TemporaryDirectory
    var bin: String { directory.path + "/bin" }
    var calls: [String] {
      ((try? String(contentsOfFile: directory.path + "/calls", encoding: .utf8)) ?? "")
        .split(separator: "\n").map(String.init)
    }

    init(installed: [String], plan: String? = nil) throws {
      directory = try TemporaryDirectory("patchbay-bootstrap")
      try FileManager.default.createDirectory(atPath: directory.path + "/bin", withIntermediateDirectories: true)
      let state = directory.path
      _ = try directory.write("installed", installed.map { $0 + "\n" }.joined())
      if let plan { _ = try directory.write("plan", plan) }
      try Self.script(
        bin + "/dpkg-query",
        """
        shift 2  # -W -f=...
        status=0
        for name in "$@"; do
          if grep -qx "$name" \(state)/installed; then echo "$name install ok installed"
          else echo "dpkg-query: no packages found matching $name" >&2; status=1; fi
        done
        exit $status
        """)
      try Self.script(
        bin + "/apt-get",
        """
        echo "$*" >> \(state)/calls
        case " $* " in
          *" --simulate "*) cat \(state)/plan 2>/dev/null || true ;;
          *" install "*) for name in "$@"; do case $name in -*|install) ;; *) echo "$name" >> \(state)/installed ;; esac; done ;;
        esac
        """)
      try Self.script(bin + "/sudo", "echo \"sudo $*\" >> \(state)/calls\nexec \"$@\"")
    }

    static func script(_ path: String, _ body: String) throws {
      try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
      chmod(path, 0o755)
    }

    /// Runs scripts/bootstrap with these tools first on PATH.
    func bootstrap(_ groups: [String], path: String? = nil, allowUpgrades: Bool = false) throws -> (
      status: Int32, output: String
    ) {
      let child = try ChildProcess(
        "/bin/bash", [SystemPackagesTests.bootstrap] + groups,
        environment: [
          "PATH": path ?? bin + ":/usr/bin:/bin", "PATCHBAY_BOOTSTRAP_ALLOW_UPGRADES": allowUpgrades ? "1" : "",
        ])
      return (try child.waitForExit(within: 120), child.output)
    }
  }

  @Test func bootstrapInstallsOnlyWhatIsMissingOnceAndNothingTheSecondTime() throws {
    let groups = try Self.groups()
    let build = try #require(groups["build"]).sorted()
    let apt = try PretendApt(installed: build.filter { $0 != "libmosquitto-dev" })
    let first = try apt.bootstrap(["build"])
    #expect(first.status == 0, "\(first.output)")
    #expect(first.output.contains("installing 1 packages for build: libmosquitto-dev"), "\(first.output)")
    let aptCalls = apt.calls.filter { !$0.hasPrefix("sudo") }
    #expect(aptCalls.count == 3, "\(apt.calls)")
    #expect(aptCalls.first?.hasSuffix("update") == true, "\(apt.calls)")
    #expect(
      aptCalls.last?.hasSuffix("install -y --no-install-recommends --no-remove libmosquitto-dev") == true,
      "\(apt.calls)")

    let second = try apt.bootstrap(["build"])
    #expect(second.status == 0 && second.output.isEmpty, "\(second.output)")
    #expect(apt.calls.filter { !$0.hasPrefix("sudo") }.count == 3, "a second run called apt: \(apt.calls)")
  }

  @Test func bootstrapRefusesAnInstallThatWouldUpgradeOrRemove() throws {
    let apt = try PretendApt(
      installed: [],
      plan:
        "Inst libmosquitto1 [2.0.11-1.2] (2.0.11-1.2+deb12u1 Debian:12/stable [amd64])\nInst libmosquitto-dev (2.0.11)\n"
    )
    let result = try apt.bootstrap(["build"])
    #expect(result.status != 0, "\(result.output)")
    #expect(result.output.contains("does neither"), "\(result.output)")
    #expect(!apt.calls.contains { $0.contains("install -y") }, "it installed anyway: \(apt.calls)")
  }

  /// CI's throwaway machine lets apt upgrade what the new packages need; a removal stays refused.
  @Test func bootstrapUpgradesOnlyWhenAskedAndNeverRemoves() throws {
    let upgrade = "Inst libmosquitto1 [2.0.11-1.2] (2.0.11-1.2+deb12u1 Debian:12/stable [amd64])\n"
    let apt = try PretendApt(installed: [], plan: upgrade)
    let result = try apt.bootstrap(["build"], allowUpgrades: true)
    #expect(result.status == 0 && result.output.contains("upgrading as apt needs"), "\(result.output)")
    #expect(apt.calls.contains { $0.contains("install -y") }, "\(apt.calls)")

    let removing = try PretendApt(installed: [], plan: upgrade + "Remv mosquitto [2.0.11-1.2]\n")
    let refused = try removing.bootstrap(["build"], allowUpgrades: true)
    #expect(refused.status != 0, "\(refused.output)")
    #expect(!removing.calls.contains { $0.contains("install -y") }, "it installed anyway: \(removing.calls)")
  }

  @Test func bootstrapWithoutAptPrintsTheListAndFails() throws {
    let apt = try PretendApt(installed: [])
    // Only the shell's own helpers on PATH: no dpkg-query, no apt-get.
    let bare = apt.directory.path + "/bare"
    try FileManager.default.createDirectory(atPath: bare, withIntermediateDirectories: true)
    for tool in ["bash", "dirname", "id"] {
      try FileManager.default.createSymbolicLink(atPath: bare + "/" + tool, withDestinationPath: "/usr/bin/" + tool)
    }
    let result = try apt.bootstrap(["test"], path: bare)
    #expect(result.status != 0, "\(result.output)")
    #expect(result.output.contains("no apt"), "\(result.output)")
    let groups = try Self.groups()
    for name in try #require(groups["test"]) {
      #expect(
        result.output.contains("  \(name)\n") || result.output.hasSuffix("  \(name)"),
        "\(name) not listed: \(result.output)")
    }
    #expect(apt.calls.isEmpty)
  }

  @Test func bootstrapRefusesAnUnknownGroup() throws {
    let apt = try PretendApt(installed: [])
    let result = try apt.bootstrap(["biuld"])
    #expect(result.status == 2 && result.output.contains("unknown group 'biuld'"), "\(result.output)")
  }
}
