import PatchbayWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// This host's side of the input ledger the hub passed as fd 4 (`pc_input_ledger`): counts of
/// inputs taken and finished, which the hub reads if this process dies. Only the plugin
/// context writes it.
final class InputLedger: Sendable {
  static let descriptor: Int32 = 4
  /// Mapped once, never unmapped (the process ends with it).
  private let page: InputLedgerPage?
  private let taken = Atomic<UInt64>(0)
  private let finished = Atomic<UInt64>(0)

  private init(page: InputLedgerPage?) { self.page = page }

  /// Counting that goes nowhere (no hub: `patchbay plugin test`).
  static var unattached: InputLedger { InputLedger(page: nil) }

  /// Maps the hub's ledger, then closes the descriptor (programs the plugin runs must not
  /// inherit it); without one (an older hub, `describe`), counting goes nowhere.
  static func attach() -> InputLedger {
    guard fcntl(descriptor, F_GETFD) != -1 else { return InputLedger(page: nil) }
    let page = InputLedgerPage.attach(descriptor: descriptor)
    close(descriptor)
    return InputLedger(page: page)
  }

  func take() {
    let count = taken.wrappingAdd(1, ordering: .relaxed).newValue
    page?.storeTaken(count)
  }

  func finish() {
    let count = finished.wrappingAdd(1, ordering: .relaxed).newValue
    page?.storeFinished(count)
  }
}
