import MQTTProtocol
import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Publishes the Home Assistant discovery configs (retained) and removes what is no longer
/// configured: the retained topics announced last time (configs and state topics) are kept in
/// the instance's state directory, and each one no longer wanted gets an empty retained
/// payload, which removes the entity from HA and the value from the broker. Without
/// `[home_assistant]` (`discovery` nil) it only clears what an earlier config announced.
struct DiscoveryAnnouncer: Sendable {
  let discovery: HomeAssistantDiscovery?
  let stateDirectory: String
  let context: PluginContext

  var recordPath: String { stateDirectory + "/home-assistant-announced.json" }

  func announce(via client: MosquittoClient) {
    let announcements = discovery?.announcements() ?? []
    let wanted = announcements.map(\.topic) + (discovery?.retainedStateTopics() ?? [])
    let previous = readRecord()
    let removed = previous.filter { !wanted.contains($0) }
    guard discovery != nil || !removed.isEmpty else { return }
    for topic in removed { client.publish(topic: topic, payload: [], qos: 1, retain: true) }
    for announcement in announcements {
      client.publish(
        topic: announcement.topic, payload: Array(announcement.payload.description.utf8), qos: 1, retain: true)
    }
    let prefix = discovery.map { " under \($0.settings.discoveryPrefix)/" } ?? ""
    context.log(
      .info,
      "announced \(announcements.count) Home Assistant discovery configs\(prefix)"
        + (removed.isEmpty ? "" : "; cleared \(removed.count) retained topics that are no longer configured"))
    writeRecord(wanted)
  }

  func readRecord() -> [String] {
    AtomicFile.removeLeftovers(of: recordPath)
    guard let data = FileManager.default.contents(atPath: recordPath),
      case .array(let items)? = JSONValue.parse(String(decoding: data, as: UTF8.self))
    else { return [] }
    return items.compactMap { if case .string(let topic) = $0 { topic } else { nil } }
  }

  /// With the kit's `AtomicFile`: a crash leaves the old or the new list.
  func writeRecord(_ topics: [String]) {
    let text = JSONValue.array(topics.map(JSONValue.string)).description
    do {
      try AtomicFile.write(text, to: recordPath)
    } catch {
      context.log(.warning, "cannot save the announced discovery topics in \(recordPath): \(error)")
    }
  }
}
