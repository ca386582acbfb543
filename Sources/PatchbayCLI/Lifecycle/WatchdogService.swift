import PatchbayHub
import ServiceLifecycle

/// systemd's watchdog: `WATCHDOG=1` every half `WatchdogSec`. Its own task: it says the hub's
/// own machinery runs, whatever a plugin or a reload is doing.
struct WatchdogService: Service {
  let interval: Double

  func run() async throws {
    let interval = interval
    try? await cancelWhenGracefulShutdown {
      while true {
        try await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        SystemdNotifier.notify("WATCHDOG=1")
      }
    }
  }
}
