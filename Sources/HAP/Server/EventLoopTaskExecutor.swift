import NIOCore

/// Runs a connection's async work (the router, the pairing authority, the accessory delegate)
/// on that connection's event loop rather than on Swift's cooperative pool. A process whose
/// pool threads are all busy or blocked (a plugin host's callers, a test process running
/// synchronous tests beside the server) must not leave a controller's request unanswered until
/// it times out.
final class EventLoopTaskExecutor: TaskExecutor {
  private let loop: any EventLoop

  init(_ loop: any EventLoop) { self.loop = loop }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
