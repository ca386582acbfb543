import DequeModule
import PatchbayValues

/// The inputs sent to the current process that its host has not reported finished: given to
/// the next process if this one dies, so an input still in a dead process's socket is not
/// lost. The host's own counts (its input ledger, a page it shares with the hub) are untrusted:
/// they are clamped to what was really sent.
package struct InFlightInputs: Sendable {
  package struct Input: Sendable, Equatable {
    package var sequence: UInt64
    package var port: String
    package var kind: PortKind
    package var value: Value
    package var hops: UInt8
  }

  /// What a dead process left: the inputs it never took off its socket (for the next process,
  /// first and in order), and the one it died handling (not retried: it may be the cause).
  package struct Leftovers: Sendable, Equatable {
    package var unseen: [Input]
    package var dying: Input?
  }

  private var pending: Deque<Input> = []
  /// Inputs sent to this process, counting from 1.
  private(set) var sent: UInt64 = 0

  package init() {}

  package var isEmpty: Bool { pending.isEmpty }

  /// A new process: its host counts from zero.
  package mutating func processBegan() { sent = 0 }

  /// `inputs` went out to the process, in order; `finished` is the host's count of inputs it
  /// has finished, which are forgotten (the list stays short).
  package mutating func sent(_ inputs: some Sequence<DeliveryBatch.Input>, hostFinished finished: UInt64?) {
    for input in inputs {
      sent &+= 1
      pending.append(Input(sequence: sent, port: input.port, kind: input.kind, value: input.value, hops: input.hops))
    }
    if let finished { forget(finished: finished) }
  }

  /// One input goes out (the common hop): its sequence number, for `withdraw`.
  package mutating func sent(_ input: DeliveryBatch.Input, hostFinished finished: UInt64) -> UInt64 {
    forget(finished: finished)
    sent &+= 1
    pending.append(Input(sequence: sent, port: input.port, kind: input.kind, value: input.value, hops: input.hops))
    return sent
  }

  /// The input recorded as `sequence` did not go out after all (the socket was full or
  /// closed): false when it is no longer here, because the process's end has already given it
  /// back with the others. The caller holds the consumer's send claim, so nothing was sent
  /// after it.
  package mutating func withdraw(_ sequence: UInt64) -> Bool {
    guard let last = pending.last, last.sequence == sequence else { return false }
    pending.removeLast()
    sent &-= 1
    return true
  }

  private mutating func forget(finished: UInt64) {
    // The pending sequences are consecutive and end at `sent` (appended in order, withdrawn
    // from the end): the first is known without copying an input out to look (issue 44).
    // One at a time: Deque's removeFirst(n) takes a generic path that costs more per hop.
    var first = sent &- UInt64(pending.count) &+ 1
    while first <= finished, !pending.isEmpty {
      pending.removeFirst()
      first &+= 1
    }
  }

  /// The process died: what it left, judged by its host's ledger (`taken` off the socket,
  /// `finished` handling; nil without a ledger). The list is empty afterwards.
  package mutating func processEnded(ledger: (taken: UInt64, finished: UInt64)?) -> Leftovers {
    defer { pending.removeAll() }
    let ledger = ledger ?? (taken: 0, finished: 0)
    let taken = min(ledger.taken, sent)
    let finished = min(ledger.finished, taken)
    let unseen = pending.filter { $0.sequence > taken }
    let dying = pending.first { $0.sequence == taken && taken > finished }
    return Leftovers(unseen: Array(unseen), dying: dying)
  }
}
