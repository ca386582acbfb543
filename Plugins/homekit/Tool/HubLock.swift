import ArgumentParser
import Foundation
import PatchbayValues

#if canImport(Glibc)
  import Glibc
#endif

/// The hub's lock on its state directory (`hub.lock`, flock'ed while a hub runs): the tool
/// changes pairings only while no hub runs (a running bridge holds them in memory and would
/// write them back), and holds the lock meanwhile so that no hub starts halfway.
struct HubLock {
  let descriptor: Int32

  /// Takes the lock before changing the instance directory `changing`, which must be this
  /// user's: a file written by root there would be unreadable to the hub (its files are 0600).
  static func take(stateDirectory: String, changing directory: String) throws -> HubLock {
    var info = stat()
    if stat(directory, &info) == 0, info.st_uid != geteuid() {
      throw CommandFailure(
        "\(directory) belongs to uid \(info.st_uid): run this as the hub's user (sudo -u patchbay patchbay homekit ...)"
      )
    }
    let path = StateLayout.hubLock(in: stateDirectory)
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard fd >= 0 else {
      throw CommandFailure("cannot open \(path): \(String(cString: strerror(errno)))")
    }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      close(fd)
      throw CommandFailure(
        "a hub is running with the state directory \(stateDirectory): stop it first (systemctl stop patchbay), "
          + "or remove the pairing from the Home app instead")
    }
    return HubLock(descriptor: fd)
  }

  func release() { close(descriptor) }
}
