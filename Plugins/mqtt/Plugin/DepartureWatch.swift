import PatchbayPluginKit

/// A second connection to the broker whose only task is its last will: `offline` on the event
/// topic, not retained. A connection has one will, and the main one's is the retained status
/// (availability); this one says "went away" once when the hub vanishes without a clean stop,
/// which the hub's "went away" trigger in Home Assistant listens for. A clean stop ends it with
/// a DISCONNECT, so the broker drops its will (the main connection says `offline` itself).
final class DepartureWatch: Sendable {
  private let client: MosquittoClient

  /// `options` are the main connection's; the client id gets `-departure`, the session is clean.
  init(options main: MosquittoClient.Options, eventTopic: String, maxPayloadBytes: Int, context: PluginContext) throws {
    var options = main
    options.clientID = main.clientID + "-departure"
    options.cleanSession = true
    options.will = (eventTopic, Array("offline".utf8))
    options.willRetained = false
    // The main connection reports the broker's problems; these lines would only repeat them.
    let events = MosquittoClient.Events(
      connected: { _ in }, published: { _ in },
      disconnected: { [context] in context.log(.debug, "departure watch: \($0)") },
      message: { _, _, _, _ in }, log: { [context] _, line in context.log(.debug, "departure watch: \(line)") })
    client = try MosquittoClient(options: options, maxPayloadBytes: maxPayloadBytes, events: events)
  }

  func start() throws(PluginError) { try client.start() }

  func stop() { client.stop(farewell: []) }
}
