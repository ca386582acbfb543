import MQTTProtocol
import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Numbers the values of each shared port from 1 within one run (`epoch`: when the run
/// started, so an importer can tell a restarted sender from a duplicate).
struct ShareSequence {
  let epoch: Int64
  private var counters: [String: Int64] = [:]

  init(epoch: Int64) { self.epoch = epoch }

  mutating func next(for port: String, value: Value, kind: PortKind) -> ShareEnvelope {
    let seq = (counters[port] ?? 0) + 1
    counters[port] = seq
    return ShareEnvelope(
      value: value, kind: kind, time: Int64(Date().timeIntervalSince1970 * 1000), epoch: epoch, seq: seq)
  }
}
