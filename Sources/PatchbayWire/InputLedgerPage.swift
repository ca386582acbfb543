import CProcessControl

#if canImport(Glibc)
  import Glibc
#endif

/// The input-ledger page (`pc_input_ledger`) one plugin host and the hub share: the host
/// stores how many inputs it took and finished, the hub reads them after the host died.
/// Mapped once on each side and released only by the hub (the host keeps it until it exits).
public struct InputLedgerPage: @unchecked Sendable {  // OS boundary: a page two processes map; C atomics only.
  private let pointer: UnsafeMutablePointer<pc_input_ledger>

  private init(_ pointer: UnsafeMutablePointer<pc_input_ledger>) { self.pointer = pointer }

  /// In the hub: a new page, and its memfd (close-on-exec) for the host; nil when the kernel
  /// refuses (the host then runs without a ledger).
  public static func create() -> (page: InputLedgerPage, descriptor: Int32)? {
    var page: UnsafeMutablePointer<pc_input_ledger>?
    let descriptor = pc_input_ledger_create(&page)
    guard descriptor >= 0, let page else { return nil }
    return (InputLedgerPage(page), descriptor)
  }

  /// In the host: maps the page passed as `descriptor`; nil when there is none.
  public static func attach(descriptor: Int32) -> InputLedgerPage? {
    pc_input_ledger_attach(descriptor).map(InputLedgerPage.init)
  }

  /// Unmaps it (the hub, once no one reads it any more).
  public func release() { pc_input_ledger_release(pointer) }

  /// Written by the host; the hub must treat what it reads as untrusted.
  public var taken: UInt64 { pc_input_ledger_taken(pointer) }
  public var finished: UInt64 { pc_input_ledger_finished(pointer) }
  public func storeTaken(_ count: UInt64) { pc_input_ledger_store_taken(pointer, count) }
  public func storeFinished(_ count: UInt64) { pc_input_ledger_store_finished(pointer, count) }
}
