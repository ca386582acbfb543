import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a file so that a crash or `kill -9` at any moment leaves either the old or the new
/// content, never a torn one: a temp file with a unique name in the same folder, written whole
/// and fsync'ed, renamed over the file, then the folder fsync'ed (so the rename itself survives
/// a power cut). The recipe `plugin.h` gives C plugins; the hub writes its state file with it too.
public enum AtomicFile {
  /// Every write has its own temp file, so two writers never share one.
  private static let writes = Atomic<Int>(0)

  /// `mode`: the new file's permissions (0600 for secrets such as keys and pairings).
  public static func write(_ text: String, to path: String, mode: mode_t = 0o640) throws(AtomicFileError) {
    try write(Array(text.utf8), to: path, mode: mode)
  }

  public static func write(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t = 0o640)
    throws(AtomicFileError)
  {
    let directory = folder(of: path)
    try makeFolder(directory)
    let serial = writes.add(1, ordering: .relaxed).newValue
    let temporary = "\(path)\(temporaryMarker)\(getpid())-\(serial)"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw AtomicFileError(path: temporary, doing: "create") }
    let contents = Array(bytes)
    var offset = 0
    while offset < contents.count {
      let written = contents.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else {
        let error = AtomicFileError(path: temporary, doing: "write")
        close(fd)
        unlink(temporary)
        throw error
      }
      offset += written
    }
    guard fsync(fd) == 0 else {
      let error = AtomicFileError(path: temporary, doing: "fsync")
      close(fd)
      unlink(temporary)
      throw error
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
      let error = AtomicFileError(path: path, doing: "rename \(temporary) to")
      unlink(temporary)
      throw error
    }
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryFD >= 0 {
      fsync(directoryFD)
      close(directoryFD)
    }
  }

  /// Removes the temp files of writes to `path` that a crash interrupted (each has its own
  /// name, so they would pile up). Call it while loading, when nothing else writes `path`: an
  /// instance is the only writer in its state directory. Returns how many it removed.
  @discardableResult
  public static func removeLeftovers(of path: String) -> Int {
    let prefix = Array((basename(of: path) + temporaryMarker).utf8)
    guard let stream = opendir(folder(of: path)) else { return 0 }
    defer { closedir(stream) }
    var leftovers: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if Array(name.utf8).starts(with: prefix) { leftovers.append(name) }
    }
    return leftovers.filter { unlink(folder(of: path) + "/" + $0) == 0 }.count
  }

  /// Temp files are named `FILE.tmp-PID-SERIAL`.
  static let temporaryMarker = ".tmp-"

  private static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  private static func basename(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// `mkdir -p`: a state directory may not exist yet on the first write.
  private static func makeFolder(_ directory: String) throws(AtomicFileError) {
    var partial = directory.hasPrefix("/") ? "" : "."
    for component in directory.split(separator: "/") {
      partial += "/" + component
      if mkdir(partial, 0o750) != 0 && errno != EEXIST {
        throw AtomicFileError(path: partial, doing: "create the folder")
      }
    }
  }
}

/// What `AtomicFile` could not do, with the system's reason.
public struct AtomicFileError: Error, Sendable, CustomStringConvertible {
  public let description: String

  init(path: String, doing action: String) {
    description = "cannot \(action) \(path): \(String(cString: strerror(errno)))"
  }
}
