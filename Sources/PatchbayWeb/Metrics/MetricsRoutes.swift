import Hummingbird
import PatchbayHub

/// GET /metrics for Prometheus. Answers 200 even when the hub is down (`patchbay_hub_up 0`), so
/// the scrape itself tells that the hub is unreachable.
struct MetricsRoutes: Sendable {
  let hub: HubClient
  /// The recorder's counters, when it runs.
  let history: HistoryFeed?

  func register(on router: Router<WebRequestContext>) {
    router.get("metrics") { _, _ in
      let status = try? await hub.request(ControlRequest(command: .status)).status
      return APIResponse.text(
        MetricsExposition.render(status, recorder: history?.recorder),
        contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
  }
}
