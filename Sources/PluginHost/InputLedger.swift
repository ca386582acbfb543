import CProcessControl

#if canImport(Glibc)
  import Glibc
#endif

/// This host's side of the input ledger the hub passed as fd 4 (`pc_input_ledger`): counts of
/// inputs taken and finished, which the hub reads if this process dies. Only the plugin
/// context writes it.
final class InputLedger: @unchecked Sendable {  // C boundary: a shared page, plugin context only.
  static let descriptor: Int32 = 4
  private let page: UnsafeMutablePointer<pc_input_ledger>?
  private var taken: UInt64 = 0
  private var finished: UInt64 = 0

  private init(page: UnsafeMutablePointer<pc_input_ledger>?) { self.page = page }

  /// Counting that goes nowhere (no hub: `patchbay plugin test`).
  static var unattached: InputLedger { InputLedger(page: nil) }

  /// Maps the hub's ledger, then closes the descriptor (programs the plugin runs must not
  /// inherit it); without one (an older hub, `describe`), counting goes nowhere.
  static func attach() -> InputLedger {
    guard fcntl(descriptor, F_GETFD) != -1 else { return InputLedger(page: nil) }
    let page = pc_input_ledger_attach(descriptor)
    close(descriptor)
    return InputLedger(page: page)
  }

  func take() {
    taken += 1
    if let page { pc_input_ledger_store_taken(page, taken) }
  }

  func finish() {
    finished += 1
    if let page { pc_input_ledger_store_finished(page, finished) }
  }
}
