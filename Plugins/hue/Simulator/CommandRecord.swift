import Foundation
import HueProtocol
import PatchbayValues
import Synchronization

/// Appends one JSON line per command the bridge received, flushed at once so tests can read
/// it while the simulator runs:
/// `{"t":1732380000.123,"kind":"light","id":"1","body":{"on":true},"outcome":"accepted","errors":0}`.
/// `t` is seconds since 1970 at arrival; `outcome` is accepted, dropped (over the limit,
/// answered success), rejected (over the limit, answered 429/503) or invalid (not applied).
/// With `printed`, each line also goes to standard output after `command `, as it happens.
final class CommandRecord: Sendable {
  /// Held while a line is written, so lines from concurrent requests never interleave.
  private let file: Mutex<FileHandle?>
  private let printed: Bool

  init(path: String?, printed: Bool = false) throws {
    self.printed = printed
    guard let path else {
      file = Mutex(nil)
      return
    }
    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    guard let handle = FileHandle(forWritingAtPath: path) else {
      throw CommandRecordError(description: "cannot open the record file '\(path)' for writing")
    }
    handle.seekToEndOfFile()
    file = Mutex(handle)
  }

  func append(time: Double, kind: String, id: String, body: JSONValue, outcome: String, errors: Int) {
    let line = JSONValue.sortedObject([
      "t": .number(time), "kind": .string(kind), "id": .string(id), "body": body, "outcome": .string(outcome),
      "errors": .integer(Int64(errors)),
    ]).text
    file.withLock {
      $0?.write(Data((line + "\n").utf8))
      if printed { say("command " + line) }
    }
  }
}

struct CommandRecordError: Error, CustomStringConvertible {
  var description: String
}
