import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a file so that a crash at any moment leaves either the old or the new content:
/// temp file in the same directory, fsync, rename, fsync of the directory.
package enum AtomicFile {
  /// Every write has its own temp file, so concurrent writers never share one.
  private static let writes = Atomic<Int>(0)

  package static func write(_ data: Data, to path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let serial = writes.add(1, ordering: .relaxed).newValue
    let temporary = "\(path).tmp-\(getpid())-\(serial)"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
    guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary]) }
    let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    let synced = fsync(fd) == 0
    close(fd)
    guard written == data.count, synced, rename(temporary, path) == 0 else {
      unlink(temporary)
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
    }
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryFD >= 0 {
      fsync(directoryFD)
      close(directoryFD)
    }
  }
}
