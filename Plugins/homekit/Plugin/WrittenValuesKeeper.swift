import Dispatch
import HAP
import PatchbayValues
import Synchronization

/// Keeps controllers' writes on disk without holding up their answer: the write's HTTP response
/// used to wait for `written-values.json` to be encoded, written and fsync'ed twice (1 to 10 ms,
/// issue 44), although nothing in it depends on the file. The newest values are saved on a queue
/// of their own instead; writes that come while a save runs are saved together once it ends.
/// `flush()` (on stop) waits until the newest values are on disk.
final class WrittenValuesKeeper: Sendable {
  typealias Save = @Sendable ([HAPCharacteristicID: JSONValue]) -> Void

  private let save: Save
  private let queue = DispatchQueue(label: "homekit.written-values")
  /// Values not saved yet; nil once a save has taken them.
  private let pending = Mutex<[HAPCharacteristicID: JSONValue]?>(nil)

  init(save: @escaping Save) { self.save = save }

  /// Saves `values` soon (the newest of several calls wins).
  func keep(_ values: [HAPCharacteristicID: JSONValue]) {
    let nothingPending = pending.withLock { pending in
      defer { pending = values }
      return pending == nil
    }
    if nothingPending { queue.async { self.saveNewest() } }
  }

  /// Returns once what `keep` was given is saved.
  func flush() { queue.sync { saveNewest() } }

  private func saveNewest() {
    let values = pending.withLock { pending in
      defer { pending = nil }
      return pending
    }
    if let values { save(values) }
  }
}
