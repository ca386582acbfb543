import Foundation
import PatchbayTestSupport
import Testing

/// Issue 44: a Swift plugin's process maps no swift-corelibs Foundation (libFoundation.so and,
/// through it, libFoundationInternationalization and ICU: 7-8 MiB resident in each plugin
/// process). FoundationEssentials (Data, Date, JSON coders, FileManager) is allowed. Checked on
/// the built libraries' dynamic section (readelf -d), so a new `import Foundation` anywhere in a
/// plugin, the kit or a dependency fails here, naming the library and the modules that import it.
@Suite struct PluginFoundationLinkTests {
  /// Every bundled plugin written in Swift (the C ones, example-c and python, need no Swift).
  static let swiftPlugins = [
    "example-swift", "fault", "flic", "flic-ble", "homebridge-websocket", "homekit", "homekit-controller", "hue",
    "mqtt", "party-lights", "schedule",
  ]
  static let forbidden: Set = [
    "libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libFoundationNetworking.so",
    "libFoundationXML.so",
  ]

  @Test(arguments: swiftPlugins) func aSwiftPluginLinksNoFoundation(_ plugin: String) throws {
    let library = BuildProducts.plugin(plugin)
    let linked = try Self.neededLibraries(library).filter(Self.forbidden.contains)
    #expect(
      linked.isEmpty,
      """
      \(library) needs \(linked.joined(separator: ", ")); use FoundationEssentials (#if canImport(FoundationEssentials)) \
      or the stdlib. Modules linked into it that import Foundation: \
      \(Self.foundationImporters("patchbay-plugin-\(plugin)"))
      """)
  }

  /// The host that runs every plugin, C ones included, stays without any Foundation at all.
  @Test func thePluginHostLinksNoFoundation() throws {
    let host = BuildProducts.executable("patchbay-plugin-host")
    let linked = try Self.neededLibraries(host).filter { $0.contains("Foundation") }
    #expect(linked.isEmpty, "\(host) needs \(linked.joined(separator: ", "))")
  }

  /// The NEEDED entries of an ELF file's dynamic section.
  static func neededLibraries(_ path: String) throws -> [String] {
    let result = try runProgram("/usr/bin/readelf", ["-d", "-W", path])
    try #require(result.status == 0, "readelf -d \(path): \(result.output)")
    // " 0x0000000000000001 (NEEDED)             Shared library: [libFoundation.so]"
    let needed = result.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
      line.split(separator: "[").last?.split(separator: "]").first.map(String.init)
    }
    try #require(!needed.isEmpty, "readelf -d \(path) lists no NEEDED library: \(result.output)")
    return needed
  }

  /// "Module (file:line)" for each source linked into `product` with an unconditional
  /// `import Foundation` (not the `#else` of a canImport(FoundationEssentials)), from SwiftPM's
  /// link file list and each module's `sources` list.
  static func foundationImporters(_ product: String) -> String {
    let build = BuildProducts.directory.path
    guard
      let objects = try? String(contentsOfFile: "\(build)/\(product).product/Objects.LinkFileList", encoding: .utf8)
    else { return "(no link file list in \(build))" }
    let moduleFolders = Set(
      objects.split(separator: "\n").map { URL(fileURLWithPath: String($0)).deletingLastPathComponent().path })
    var found: [String] = []
    for folder in moduleFolders.sorted() {
      guard let sources = try? String(contentsOfFile: folder + "/sources", encoding: .utf8) else { continue }
      let module = URL(fileURLWithPath: folder).deletingPathExtension().lastPathComponent
      for source in sources.split(separator: "\n").map(String.init) {
        guard let text = try? String(contentsOfFile: source, encoding: .utf8) else { continue }
        var previous = ""
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
          let trimmed = line.trimmingCharacters(in: .whitespaces)
          if trimmed.range(of: #"^(@\w+ |public |internal |package )*import Foundation$"#, options: .regularExpression)
            != nil, previous != "#else"
          {
            found.append("\(module) (\(source):\(number + 1))")
          }
          if !trimmed.isEmpty { previous = trimmed }
        }
      }
    }
    return found.isEmpty
      ? "none found in the sources: an incremental build keeps the"
        + " Foundation autolink entry in object files compiled while a file of their module still imported"
        + " it (touch that module's sources or build afresh), or a system library brings it"
      : found.joined(separator: ", ")
  }
}
