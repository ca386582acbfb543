import Foundation
import Hummingbird
import PatchbayRecorder

/// GET /api/history?port=INSTANCE.PORT&since=SECONDS: a port's recorded values, oldest first
/// (docs/web.md). `since` is how many seconds back (default a day), or a unix time.
struct HistoryRoutes: Sendable {
  /// Nil when the recorder is off (`[recorder] enabled = false`, or no config).
  let feed: HistoryFeed?

  func register(on router: Router<WebRequestContext>) {
    router.group("api").get("history") { request, _ in answer(request) }
  }

  private func answer(_ request: Request) -> Response {
    let query = request.uri.queryParameters
    guard let port = query.get("port"), !port.isEmpty else {
      return APIResponse.error(.badRequest, "expected ?port=INSTANCE.PORT (and since=SECONDS, default 86400)")
    }
    var since = Date().timeIntervalSince1970 - 86_400
    if let text = query.get("since") {
      guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
        return APIResponse.error(.badRequest, "since must be a number of seconds back (or a unix time), got '\(text)'")
      }
      // Past a billion it is a moment (2001 on), not a span.
      since = seconds >= 1_000_000_000 ? seconds : Date().timeIntervalSince1970 - seconds
    }
    since = since.rounded(.down)
    guard let feed else {
      return APIResponse.error(.notFound, "the history is off: [recorder] enabled = false, or no hub config read")
    }
    let recorder = feed.recorder
    var points: [HistoryPoint] = []
    if let store = recorder.reader {
      do {
        points = try store.points(port: port, since: since)
      } catch {
        return APIResponse.error(.internalServerError, "the history cannot be read: \(error)")
      }
    }
    return APIResponse.json(
      HistoryAnswer(port: port, since: since, points: points, dropped: recorder.dropped(port: port)))
  }
}
