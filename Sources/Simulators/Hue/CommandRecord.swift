import Foundation
import HueProtocol
import PatchbayValues

/// Appends one JSON line per command the bridge received, flushed at once so tests can read
/// it while the simulator runs:
/// `{"t":1732380000.123,"kind":"light","id":"1","body":{"on":true},"outcome":"accepted","errors":0}`.
/// `t` is seconds since 1970 at arrival; `outcome` is accepted, dropped (over the limit,
/// answered success), rejected (over the limit, answered 429/503) or invalid (not applied).
final class CommandRecord: @unchecked Sendable {
  private let handle: FileHandle?
  private let lock = NSLock()

  init(path: String?) throws {
    guard let path else {
      handle = nil
      return
    }
    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    guard let handle = FileHandle(forWritingAtPath: path) else {
      throw CommandRecordError(description: "cannot open the record file '\(path)' for writing")
    }
    handle.seekToEndOfFile()
    self.handle = handle
  }

  func append(time: Double, kind: String, id: String, body: JSONValue, outcome: String, errors: Int) {
    guard let handle else { return }
    let line = JSONValue.sortedObject([
      "t": .number(time), "kind": .string(kind), "id": .string(id), "body": body, "outcome": .string(outcome),
      "errors": .integer(Int64(errors)),
    ]).text
    lock.lock()
    defer { lock.unlock() }
    handle.write(Data((line + "\n").utf8))
  }
}

struct CommandRecordError: Error, CustomStringConvertible {
  var description: String
}
