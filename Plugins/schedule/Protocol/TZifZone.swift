#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A zone read from the system's tz database: a TZif file (RFC 8536) under /usr/share/zoneinfo,
/// its list of transitions and, after the last one, the POSIX rule in its footer.
public struct TZifZone: Sendable {
  /// Transition instants, ascending, and the offset that holds from each.
  let transitions: [Int64]
  let offsetsAfter: [Int64]
  /// The offset before the first transition.
  let initialOffset: Int64
  let footer: PosixZoneRule?

  /// Seconds east of UTC at `instant`.
  public func offset(at instant: Int64) -> Int64 {
    guard let first = transitions.first, instant >= first else {
      return transitions.isEmpty ? (footer?.offset(at: instant) ?? initialOffset) : initialOffset
    }
    if instant >= transitions[transitions.count - 1], let footer { return footer.offset(at: instant) }
    // The last transition at or before the instant.
    var low = 0
    var high = transitions.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if transitions[middle] <= instant { low = middle } else { high = middle - 1 }
    }
    return offsetsAfter[low]
  }

  /// A zone given only by a POSIX TZ rule (`TZ=CET-1CEST,M3.5.0,M10.5.0/3`).
  public init(rule: PosixZoneRule) {
    transitions = []
    offsetsAfter = []
    initialOffset = rule.offset(at: 0)
    footer = rule
  }

  /// The directory of the system's tz database.
  public static let databaseDirectory = "/usr/share/zoneinfo"

  /// Reads the zone `identifier` ("Europe/Berlin") from the tz database; nil when there is no
  /// such file or it is not a TZif file this reader understands.
  public init?(identifier: String, directory: String = databaseDirectory) {
    // A name, not a path: nothing that could leave the database directory.
    let parts = identifier.split(separator: "/", omittingEmptySubsequences: false)
    guard !identifier.isEmpty, identifier.utf8.count <= 255,
      parts.allSatisfy({ part in
        !part.isEmpty && part != "." && part != ".."
          && part.unicodeScalars.allSatisfy {
            ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
              || "_-+".unicodeScalars
                .contains($0)
          }
      }),
      let data = FileManager.default.contents(atPath: directory + "/" + identifier)
    else { return nil }
    self.init(data: [UInt8](data))
  }

  /// Parses TZif data (version 1 to 4; for version 2 and up, the 64-bit part and the footer).
  public init?(data: [UInt8]) {
    var reader = Reader(bytes: data)
    guard let header = reader.header() else { return nil }
    var use = header
    var timeSize = 4
    if header.version >= 2 {
      // Skip the version 1 part; the second header and its 64-bit data follow.
      guard reader.skip(header.dataSize(timeSize: 4)), let second = reader.header() else { return nil }
      use = second
      timeSize = 8
    }
    guard let times = reader.integers(count: use.timeCount, size: timeSize),
      let indices = reader.bytes(count: use.timeCount)
    else { return nil }
    var offsets: [Int64] = []
    for _ in 0..<use.typeCount {
      guard let offset = reader.integers(count: 1, size: 4)?.first, reader.skip(2) else { return nil }
      offsets.append(offset)
    }
    guard !offsets.isEmpty, indices.allSatisfy({ Int($0) < offsets.count }),
      reader.skip(use.charCount + use.leapCount * (timeSize + 4) + use.standardCount + use.utcCount)
    else { return nil }
    var footer: PosixZoneRule?
    if header.version >= 2 {
      // The footer is required from version 2 on (possibly empty): without it, a cut file.
      guard reader.take(UInt8(ascii: "\n")), let line = reader.line() else { return nil }
      if !line.isEmpty {
        guard let rule = PosixZoneRule(line) else { return nil }
        footer = rule
      }
    }
    transitions = times
    offsetsAfter = indices.map { offsets[Int($0)] }
    initialOffset = offsets[0]
    self.footer = footer
  }

  struct Header {
    var version: Int
    var utcCount: Int
    var standardCount: Int
    var leapCount: Int
    var timeCount: Int
    var typeCount: Int
    var charCount: Int

    func dataSize(timeSize: Int) -> Int {
      timeCount * (timeSize + 1) + typeCount * 6 + charCount + leapCount * (timeSize + 4) + standardCount + utcCount
    }
  }

  struct Reader {
    let bytes: [UInt8]
    var index = 0

    mutating func skip(_ count: Int) -> Bool {
      guard count >= 0, index + count <= bytes.count else { return false }
      index += count
      return true
    }

    mutating func take(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }

    mutating func bytes(count: Int) -> [UInt8]? {
      guard index + count <= bytes.count else { return nil }
      defer { index += count }
      return Array(bytes[index..<(index + count)])
    }

    /// Big-endian signed integers of 4 or 8 bytes.
    mutating func integers(count: Int, size: Int) -> [Int64]? {
      guard count >= 0, count <= bytes.count, index + count * size <= bytes.count else { return nil }
      var result: [Int64] = []
      result.reserveCapacity(count)
      for _ in 0..<count {
        var value: UInt64 = 0
        for byte in bytes[index..<(index + size)] { value = value << 8 | UInt64(byte) }
        index += size
        result.append(size == 4 ? Int64(Int32(bitPattern: UInt32(value))) : Int64(bitPattern: value))
      }
      return result
    }

    mutating func header() -> Header? {
      guard let magic = bytes(count: 4), magic == Array("TZif".utf8), let version = bytes(count: 1),
        skip(15), let counts = integers(count: 6, size: 4), counts.allSatisfy({ $0 >= 0 && $0 < 1_000_000 })
      else { return nil }
      let number = version[0] == 0 ? 1 : Int(version[0]) - 48
      guard (1...9).contains(number) else { return nil }
      return Header(
        version: number, utcCount: Int(counts[0]), standardCount: Int(counts[1]), leapCount: Int(counts[2]),
        timeCount: Int(counts[3]), typeCount: Int(counts[4]), charCount: Int(counts[5]))
    }

    /// Text up to the next newline (which is consumed).
    mutating func line() -> String? {
      guard let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
      defer { index = end + 1 }
      return String(decoding: bytes[index..<end], as: UTF8.self)
    }
  }
}
