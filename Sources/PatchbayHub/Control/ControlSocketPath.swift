import PatchbayCore

#if canImport(Glibc)
  import Glibc
#endif

/// What is at the control socket's path before a hub binds there. A hub only ever removes a
/// stale socket (a socket nobody answers on): a live one belongs to a running hub, and any
/// other file (a user's file, a folder, a link) is not the hub's to delete.
public enum ControlSocketPath: Equatable, Sendable {
  case free
  /// A socket that refuses connections: what a hub killed with SIGKILL leaves behind.
  case staleSocket
  /// A hub (or something) answers on it.
  case liveSocket
  /// Something that is not a socket: `kind` says what ("a regular file", "a folder").
  case occupied(kind: String)

  public static func inspect(_ path: String) -> ControlSocketPath {
    var info = stat()
    guard lstat(path, &info) == 0 else { return .free }
    switch info.st_mode & S_IFMT {
    case S_IFSOCK: return answers(path) ? .liveSocket : .staleSocket
    case S_IFREG: return .occupied(kind: "a regular file")
    case S_IFDIR: return .occupied(kind: "a folder")
    case S_IFLNK: return .occupied(kind: "a symbolic link")
    case S_IFIFO: return .occupied(kind: "a FIFO")
    default: return .occupied(kind: "a device or other special file")
    }
  }

  /// Makes `path` free for a new socket: removes a stale socket, refuses everything else.
  public static func claim(_ path: String) throws(ControlError) {
    if let problem = problem(path) { throw ControlError(problem) }
    if inspect(path) == .staleSocket { unlink(path) }
  }

  /// Why a hub could not put its control socket at `path`, or nil if it can.
  public static func problem(_ path: String) -> String? {
    switch inspect(path) {
    case .free, .staleSocket: return nil
    case .liveSocket:
      return "control socket \(path) is in use: another hub answers there (stop it, or give this hub another "
        + "control_socket)"
    case .occupied(let kind):
      return "control socket \(path) would replace \(kind); patchbay only ever removes a stale socket. Choose "
        + "another control_socket, or move that file away"
    }
  }

  /// Whether the socket at `path` has a listener. Only a refused connection means nobody
  /// listens; a full backlog (EAGAIN) or a permission error is somebody's live socket.
  private static func answers(_ path: String) -> Bool {
    guard var address = UnixStream.address(path) else { return true }
    let fd = socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { return true }
    defer { close(fd) }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    return result == 0 || (errno != ECONNREFUSED && errno != ENOENT)
  }
}
