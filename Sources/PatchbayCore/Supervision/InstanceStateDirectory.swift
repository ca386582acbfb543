import Foundation
import PatchbayValues

#if canImport(Glibc)
  import Glibc
#endif

/// An instance's own state directory. It holds what is that instance's alone (a HomeKit
/// bridge's long-term key, a broker password), so it is 0700, the hub's user's, and never
/// reached through a symbolic link (a link planted there would hand the secrets elsewhere).
package enum InstanceStateDirectory {
  /// Creates `path` 0700, or tightens it when it exists; with `parentToo`, its parent (the
  /// `instances` directory) the same way first. Nil when ready, otherwise why not.
  package static func prepare(_ path: String, parentToo: Bool = true) -> String? {
    if parentToo {
      let parent = (path as NSString).deletingLastPathComponent
      // The hub's own state directory (the run refuses to start where it cannot be made).
      try? FileManager.default.createDirectory(
        atPath: (parent as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      if let problem = secure(parent) { return problem }
    }
    return secure(path)
  }

  /// For a probe (`check`, `plugins --ports`): the regular files of the instance's real state
  /// directory copied into the probe's own (0700, removed after), so ports that follow from
  /// kept state (a homekit-controller's cached accessory database) are the ones it runs with.
  /// What cannot be read (check run by another user) is left out: the plugin then sees no state.
  package static func copyForProbe(_ stateDirectory: String, instance: String, to probe: String) {
    let real = StateLayout.instanceDirectory(instance, in: stateDirectory)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: real) else { return }
    for name in names {
      let source = real + "/" + name
      var info = stat()
      guard lstat(source, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
        let data = FileManager.default.contents(atPath: source)
      else { continue }
      FileManager.default.createFile(
        atPath: probe + "/" + name, contents: data, attributes: [.posixPermissions: 0o600])
    }
  }

  private static func secure(_ path: String) -> String? {
    if mkdir(path, 0o700) != 0, errno != EEXIST {
      return "cannot create the state directory '\(path)': \(String(cString: strerror(errno)))"
    }
    // O_NOFOLLOW: a symbolic link is refused, not followed (lstat, then open, would race).
    let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else {
      var link = stat()
      // With O_DIRECTORY a link reads as ENOTDIR, without it as ELOOP: lstat tells which.
      let isLink = errno == ELOOP || (lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK)
      switch isLink ? ELOOP : errno {
      case ELOOP:
        return "the state directory '\(path)' is a symbolic link; refused (it would hold this instance's"
          + " secrets somewhere else): replace it with a directory"
      case ENOTDIR:
        return "the state directory '\(path)' is not a directory: remove it or move it away"
      default:
        return "cannot open the state directory '\(path)': \(String(cString: strerror(errno)))"
      }
    }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      return "cannot inspect the state directory '\(path)': \(String(cString: strerror(errno)))"
    }
    guard info.st_uid == geteuid() else {
      return "the state directory '\(path)' belongs to uid \(info.st_uid), not the hub's user"
        + " (uid \(geteuid())): chown it to the hub's user"
    }
    // An older hub made them 0755: tightened, whoever could list them before.
    if info.st_mode & 0o7777 != 0o700, fchmod(descriptor, 0o700) != 0 {
      return "cannot make the state directory '\(path)' private (0700): \(String(cString: strerror(errno)))"
    }
    return nil
  }
}
