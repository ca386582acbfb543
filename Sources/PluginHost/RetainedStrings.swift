import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// C strings handed to the plugin (the create args, what the config accessors return): copied
/// once per distinct text and never freed. The ABI promises them until destroy() returns, and
/// the process ends soon after.
final class RetainedStrings: Sendable {
  /// A copy made with strdup: the plugin reads it, nobody writes or frees it.
  private struct CString: @unchecked Sendable {  // C boundary: memory the plugin holds pointers into.
    let pointer: UnsafeMutablePointer<CChar>
  }

  private let copies = Mutex<[String: CString]>([:])

  func pointer(for string: String) -> UnsafePointer<CChar> {
    let copy = copies.withLock { copies in
      if let existing = copies[string] { return existing }
      let made = CString(pointer: strdup(string)!)
      copies[string] = made
      return made
    }
    return UnsafePointer(copy.pointer)
  }
}
