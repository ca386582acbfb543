import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reads and writes the party record as JSON with the kit's `AtomicFile`, so a kill mid-write
/// leaves the previous record or the new one.
public struct RecordStore: Sendable {
  public let path: String

  public init(directory: String) {
    path = directory + "/party.json"
  }

  /// The stored record; a fresh one when there is none. A damaged file is reported, not trusted.
  public func load() throws -> PartyRecord {
    AtomicFile.removeLeftovers(of: path)
    guard let data = FileManager.default.contents(atPath: path) else { return PartyRecord() }
    return try JSONDecoder().decode(PartyRecord.self, from: data)
  }

  public func save(_ record: PartyRecord) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    try AtomicFile.write(try encoder.encode(record), to: path)
  }
}
