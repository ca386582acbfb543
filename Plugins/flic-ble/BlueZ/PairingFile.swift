import FlicBLEProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// A button's pairing and event cursor in the instance's state directory: `NAME.flic2`, mode
/// 0600 (it holds the pairing key), replaced atomically (write, fsync, rename) so a crash leaves
/// the old or the new file, never half of one. The tool writes it at pairing; the plugin reads it
/// and rewrites it whenever the event cursor moves.
public struct PairingFile: Sendable {
  public let path: String

  public init(stateDirectory: String, button name: String) {
    path = stateDirectory + "/" + name + ".flic2"
  }

  public enum LoadError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing
    case unreadable(String)
    public var description: String {
      switch self {
      case .missing: "no pairing"
      case .unreadable(let reason): reason
      }
    }
  }

  public func load() throws(LoadError) -> StoredButton {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { throw .missing }
      throw .unreadable("cannot read \(path): \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    var data: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = read(fd, &chunk, chunk.count)
      if count <= 0 { break }
      data += chunk[0..<count]
    }
    var fields: [String: String] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let pair = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
    }
    guard let address = fields["address"].flatMap(BluetoothAddressText.init),
      let identifier = fields["pairing_id"].flatMap({ UInt32($0) }),
      let key = fields["pairing_key"].flatMap(Self.bytes), key.count == 16
    else {
      throw .unreadable("\(path) is damaged (address, pairing_id or pairing_key missing); pair the button again")
    }
    return StoredButton(
      pairing: Pairing(identifier: identifier, key: key), address: address.littleEndian,
      buttonUUID: fields["button_uuid"].flatMap(Self.bytes) ?? [], serialNumber: fields["serial"] ?? "",
      name: fields["name"] ?? "", firmwareVersion: fields["firmware"].flatMap { UInt32($0) } ?? 0,
      cursor: EventCursor(
        eventCount: fields["event_count"].flatMap { UInt32($0) } ?? 0,
        bootID: fields["boot_id"].flatMap { UInt32($0) } ?? 0,
        // Absent in files written before Duo support (and for a Flic 2): nothing delivered yet.
        smallEventCount: fields["small_event_count"].flatMap { UInt32($0) } ?? 0))
  }

  public func save(_ button: StoredButton) throws(LoadError) {
    let text = """
      # A Flic 2 pairing (patchbay flic-ble): the key is secret.
      address=\(BluetoothAddressText(littleEndian: button.address))
      pairing_id=\(button.pairing.identifier)
      pairing_key=\(Self.hex(button.pairing.key))
      button_uuid=\(Self.hex(button.buttonUUID))
      serial=\(button.serialNumber.filter { $0 != "\n" })
      name=\(button.name.filter { $0 != "\n" })
      firmware=\(button.firmwareVersion)
      event_count=\(button.cursor.eventCount)
      boot_id=\(button.cursor.bootID)
      small_event_count=\(button.cursor.smallEventCount)

      """
    let temporary = path + ".new"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw .unreadable("cannot write \(temporary): \(String(cString: strerror(errno)))") }
    fchmod(fd, 0o600)
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    let synced = fsync(fd)
    close(fd)
    guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
      unlink(temporary)
      throw .unreadable("cannot write \(path): \(String(cString: strerror(errno)))")
    }
  }

  /// Keeps a refused pairing aside (`NAME.flic2.reset`) rather than deleting it: a person may want to look.
  public func retire() { _ = rename(path, path + ".reset") }

  public func remove() -> Bool { unlink(path) == 0 }

  static func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

  static func bytes(_ text: String) -> [UInt8]? {
    guard text.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
      out.append(byte)
      index = next
    }
    return out
  }
}
