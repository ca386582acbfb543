import Foundation
import MQTTMapping
import PatchbayPluginKit

/// Publishes the Home Assistant discovery configs (retained) and removes those of entities
/// that are gone: the topics announced last time are kept in the instance's state directory,
/// and each one no longer announced gets an empty retained payload.
struct DiscoveryAnnouncer: Sendable {
  let discovery: HomeAssistantDiscovery
  let stateDirectory: String
  let context: PluginContext

  var recordPath: String { stateDirectory + "/home-assistant-announced.json" }

  func announce(via client: MosquittoClient) {
    let announcements = discovery.announcements()
    let current = announcements.map(\.topic)
    let previous = readRecord()
    for topic in previous where !current.contains(topic) {
      client.publish(topic: topic, payload: [], qos: 1, retain: true)
    }
    for announcement in announcements {
      client.publish(
        topic: announcement.topic, payload: Array(announcement.payload.description.utf8), qos: 1, retain: true)
    }
    let removed = previous.filter { !current.contains($0) }.count
    context.log(
      .info,
      "announced \(announcements.count) Home Assistant discovery configs under \(discovery.settings.discoveryPrefix)/"
        + (removed > 0 ? "; removed \(removed) that are no longer configured" : ""))
    writeRecord(current)
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
