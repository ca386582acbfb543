import PatchbayCValues
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// C strings handed to the plugin (the create args, what the config accessors return): copied
/// once per distinct text and never freed. The ABI promises them until destroy() returns, and
/// the process ends soon after.
final class RetainedStrings: Sendable {
  /// Copies made with strdup. ABIPointer: the plugin only reads them, from any thread, and
  /// nobody writes or frees them.
  private let copies = Mutex<[String: ABIPointer<UnsafeMutablePointer<CChar>>]>([:])

  func pointer(for string: String) -> UnsafePointer<CChar> {
    let copy = copies.withLock { copies in
      if let existing = copies[string] { return existing }
      let made = ABIPointer(strdup(string)!)
      copies[string] = made
      return made
    }
    return UnsafePointer(copy.pointer)
  }
}
