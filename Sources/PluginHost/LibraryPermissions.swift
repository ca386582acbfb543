#if canImport(Glibc)
  import Glibc
#endif

/// Refuses a plugin library that someone other than root and the hub's user could have put
/// there or changed, as sshd's StrictModes does for keys: the library file and every folder up
/// to `/`, along the path as configured (the `plugin_path` folder, symbolic links as links)
/// and along the real path behind it. A folder writable by others is allowed only with the
/// sticky bit (like /tmp), where others cannot replace what they do not own.
enum LibraryPermissions {
  static func problem(_ path: String) -> String? {
    let user = geteuid()
    var checked: Set<String> = []
    var chains = [path]
    if let resolved = realpath(path, nil) {
      chains.append(String(cString: resolved))
      free(resolved)
    }
    for start in chains {
      var current = start
      while true {
        if checked.insert(current).inserted, let problem = problem(with: current, user: user) {
          return "\(path): refused to load: \(problem)"
        }
        guard current != "/", let slash = current.lastIndex(of: "/") else { break }
        current = slash == current.startIndex ? "/" : String(current[..<slash])
      }
    }
    return nil
  }

  private static func problem(with path: String, user: uid_t) -> String? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    let type = info.st_mode & S_IFMT
    let what = type == S_IFDIR ? "folder" : "file"
    if info.st_uid != 0, info.st_uid != user {
      return
        "the \(what) '\(path)' belongs to uid \(info.st_uid), neither root nor the hub's user (uid \(user)),"
        + " who could have put their own code there: do not chown it to make it load. Remove it"
        + (type == S_IFDIR
          ? " from the plugin path (or move the plugins you trust to a folder root owns)"
          : " (`rm \(path)`), or reinstall the plugin from its package; trust it only after a look at where it came from")
    }
    // A symbolic link's own mode means nothing; what it points at is checked on the real path.
    guard type != S_IFLNK else { return nil }
    let othersWrite = info.st_mode & (S_IWGRP | S_IWOTH)
    if othersWrite != 0, !(type == S_IFDIR && info.st_mode & S_ISVTX != 0) {
      let mode = String(info.st_mode & 0o7777, radix: 8)
      let who = info.st_mode & S_IWOTH != 0 ? "anyone" : "its group"
      return
        "the \(what) '\(path)' is writable by \(who) (mode \(mode)), who could plant or change a plugin there;"
        + " fix it with `chmod go-w \(path)`"
    }
    return nil
  }
}
