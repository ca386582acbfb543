/// Per imported topic: the newest (epoch, seq) delivered. A message not newer is a duplicate
/// (QoS 1 redelivery, a retained copy seen again after a reconnect).
public struct DuplicateFilter: Sendable {
  private var newest: [String: (epoch: Int64, seq: Int64)] = [:]

  public init() {}

  /// True when the message is new (and remembers it); false for a duplicate.
  public mutating func accept(topic: String, epoch: Int64, seq: Int64) -> Bool {
    if let last = newest[topic], epoch < last.epoch || (epoch == last.epoch && seq <= last.seq) { return false }
    newest[topic] = (epoch, seq)
    return true
  }
}
