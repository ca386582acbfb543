import Foundation
import PatchbayCore
import PatchbayValues

#if canImport(Glibc)
  import Glibc
#endif

/// One hub per state directory: `hub.lock` there, flock'ed for the hub's whole life and holding
/// its pid. A second hub on the same directory refuses at once and names the first; the kernel
/// drops the lock when the holder dies, however it dies, so a `kill -9` leaves nothing to clean.
public final class StateDirectoryLock: Sendable {
  public static let fileName = StateLayout.hubLockFileName
  /// Open (close-on-exec: plugin hosts must not inherit and outlive it) until the process ends.
  private let descriptor: Int32

  private init(descriptor: Int32) { self.descriptor = descriptor }

  /// Takes the lock on `directory` (creating the directory), or says why this hub must not run.
  public static func acquire(_ directory: String) throws(ControlError) -> StateDirectoryLock {
    let path = directory + "/" + fileName
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw ControlError(
        "cannot create the state directory \(directory) (state_directory): \(error.localizedDescription)")
    }
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard fd >= 0 else {
      throw ControlError(
        "cannot open \(path) to lock the state directory (state_directory): \(String(cString: strerror(errno)))")
    }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let holder = Self.recordedPID(fd)
      close(fd)
      throw ControlError(
        "another hub\(holder.map { " (pid \($0))" } ?? "") is running with the state directory \(directory) "
          + "(it holds \(path)); stop it first, or give this config its own state_directory")
    }
    let pid = Array("\(getpid())\n".utf8)
    _ = ftruncate(fd, 0)
    _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    return StateDirectoryLock(descriptor: fd)
  }

  /// The pid the holder wrote into the lock file, if it is readable.
  private static func recordedPID(_ fd: Int32) -> Int32? {
    var bytes = [UInt8](repeating: 0, count: 32)
    let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return nil }
    return Int32(String(decoding: bytes[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
  }

  deinit { close(descriptor) }
}
