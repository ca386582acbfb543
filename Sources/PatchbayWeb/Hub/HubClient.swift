import Foundation
import PatchbayHub

/// The hub's control socket, asked from async code: each request is one short blocking
/// connection, run off Swift's cooperative threads. At most four at a time: the hub serves each
/// control connection on a thread of its own, so a flood of HTTP requests must queue here, in
/// this process, not become a flood of threads in the hub.
struct HubClient: Sendable {
  let socket: String
  private static let queue: OperationQueue = {
    let queue = OperationQueue()
    queue.name = "patchbay-web.hub-requests"
    queue.maxConcurrentOperationCount = 4
    return queue
  }()

  /// The hub's answer; throws when the hub cannot be reached or answers unreadably (not when it
  /// refuses: `ok` false with a message).
  func request(_ request: ControlRequest) async throws(ControlError) -> ControlResponse {
    let socket = self.socket
    let result: Result<ControlResponse, ControlError> = await withCheckedContinuation { continuation in
      Self.queue.addOperation {
        do throws(ControlError) {
          continuation.resume(returning: .success(try ControlClient.request(request, socket: socket)))
        } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
    return try result.get()
  }
}
