import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Whether the hub can save in its `state_directory` (retained values, transform positions,
/// each instance's own state). `check` reports what would stop it and `run` refuses to start
/// there, rather than run for days without saving a thing. A directory that does not exist yet
/// is fine when it can be created: its nearest existing parent is a directory this user may
/// write to (`run` creates it then).
public enum StateDirectoryCheck {
  /// What is wrong with `path` for this process's user, or nil when the hub can save there.
  public static func problem(_ path: String) -> String? {
    let user = "this user (uid \(geteuid()))"
    var info = stat()
    if stat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else {
        return "'\(path)' is not a directory: the hub saves its state in a directory; give one"
      }
      guard access(path, W_OK | X_OK) == 0 else {
        return "'\(path)' is not writable by \(user): nothing could be saved; make it writable"
          + " (chown it to the hub's user) or choose another directory"
      }
      return nil
    }
    // Missing: the nearest existing parent decides whether it can be created.
    var parent = (path as NSString).deletingLastPathComponent
    while !parent.isEmpty, parent != "/", stat(parent, &info) != 0 {
      parent = (parent as NSString).deletingLastPathComponent
    }
    if parent.isEmpty { parent = "." }
    guard stat(parent, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
      return "'\(path)' does not exist and cannot be created: '\(parent)' is not a directory"
    }
    guard access(parent, W_OK | X_OK) == 0 else {
      return "'\(path)' does not exist and cannot be created: '\(parent)' is not writable by \(user);"
        + " create it for the hub's user or choose another directory"
    }
    return nil
  }

  /// Creates the directory (and missing parents) where `problem` found none.
  public static func prepare(_ path: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }
}
