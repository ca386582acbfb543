#if canImport(Glibc)
  import Glibc
#endif

/// A plugin's own long-running thread (a C library's blocking loop), without Foundation's
/// `Thread`: a detached pthread with a name that `top -H` and crash reports show.
public enum PluginThread {
  /// A closure to hand through pthread_create's one pointer.
  private final class Body: Sendable {
    let name: String
    let run: @Sendable () -> Void
    init(name: String, run: @escaping @Sendable () -> Void) {
      self.name = name
      self.run = run
    }
  }

  /// Starts `body` on a new detached thread named `name` (Linux keeps the first 15 bytes).
  /// Throws when the system has no thread to give (EAGAIN: a process or cgroup limit).
  public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(PluginError) {
    let box = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
    let status = detached(box)
    guard status == 0 else {
      Unmanaged<Body>.fromOpaque(box).release()
      throw PluginError(.internal, "cannot start thread '\(name)': \(String(cString: strerror(status)))")
    }
  }

  /// pthread_create with `box` (a retained `Body`), detached; its status.
  private static func detached(_ box: UnsafeMutableRawPointer) -> Int32 {
    var handle = pthread_t()
    let status = pthread_create(&handle, nil, runBody, box)
    if status == 0 { pthread_detach(handle) }
    return status
  }

  private static let runBody: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
    let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
    nameThisThread(body.name)
    body.run()
    return nil
  }

  /// Best effort, through procfs: pthread_setname_np is hidden from Swift's Glibc module
  /// (_GNU_SOURCE), and a sandbox that denies the write only loses the name.
  private static func nameThisThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
  }
}
