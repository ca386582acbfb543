import Foundation

/// Reads and writes the party record as JSON, atomically (temporary file in the same
/// directory, then rename), so a kill mid-write leaves the previous record.
public struct RecordStore: Sendable {
  public let path: String

  public init(directory: String) {
    path = directory + "/party.json"
  }

  /// The stored record; a fresh one when there is none. A damaged file is reported, not trusted.
  public func load() throws -> PartyRecord {
    guard let data = FileManager.default.contents(atPath: path) else { return PartyRecord() }
    return try JSONDecoder().decode(PartyRecord.self, from: data)
  }

  public func save(_ record: PartyRecord) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(record)
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let temporary = path + ".tmp"
    guard FileManager.default.createFile(atPath: temporary, contents: data) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
    }
    guard rename(temporary, path) == 0 else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
    }
  }
}
