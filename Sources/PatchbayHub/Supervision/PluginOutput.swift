import CProcessControl
import Foundation
import PatchbayCore
import PatchbayWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A plugin host's standard output and error: pipes of its own, read by the hub.
///
/// Were they the hub's own (the journal, under systemd), a plugin could write lines that look
/// like the hub's (`... critical [hub] FORGED`) and raw terminal escapes. Here every line goes
/// through the instance's logger (labelled with the instance, control characters escaped by the
/// log handler) within a budget: 200 lines per 10 s per stream, then one summary line per 10 s.
/// A line longer than 4 KiB is cut into several.
final class PluginOutput: Sendable {
  enum Stream: String, Sendable { case stdout, stderr }

  /// The host's ends, to be placed at fds 1 and 2; the hub closes them after the spawn.
  let hostEnds: (stdout: Int32, stderr: Int32)
  private let hubEnds: (stdout: Int32, stderr: Int32)
  /// Wakes the reader to stop (its host ended and something else still holds a pipe open).
  private let stopEvent: Int32
  private let done = DispatchSemaphore(value: 0)

  static let lineLimit = 4096

  /// nil when the pipes cannot be made (the host then writes to /dev/null).
  init?() {
    var out: [Int32] = [-1, -1]
    var err: [Int32] = [-1, -1]
    guard pc_pipe_cloexec(&out) == 0 else { return nil }
    guard pc_pipe_cloexec(&err) == 0 else {
      close(out[0])
      close(out[1])
      return nil
    }
    let event = pc_eventfd_cloexec()
    guard event >= 0 else {
      [out[0], out[1], err[0], err[1]].forEach { close($0) }
      return nil
    }
    hostEnds = (out[1], err[1])
    hubEnds = (out[0], err[0])
    stopEvent = event
  }

  /// After the spawn: the hub keeps only its reading ends, and starts reading; `emit` gets
  /// each line (without its newline) and the budget's summaries.
  func start(name: String, emit: @escaping @Sendable (Stream, String) -> Void) {
    close(hostEnds.stdout)
    close(hostEnds.stderr)
    let reader = Thread { [self] in readLoop(emit) }
    reader.name = name
    reader.start()
  }

  /// The spawn failed: nothing will read.
  func discard() {
    [hostEnds.stdout, hostEnds.stderr, hubEnds.stdout, hubEnds.stderr, stopEvent].forEach { close($0) }
  }

  /// The host ended: what it wrote before is read to the end, unless an escaped descendant
  /// still holds a pipe open after `seconds`; then reading stops.
  func finish(within seconds: Double) {
    if done.wait(timeout: .now() + seconds) == .timedOut {
      var one: UInt64 = 1
      _ = write(stopEvent, &one, 8)
      done.wait()
    }
  }

  private func readLoop(_ emit: @Sendable (Stream, String) -> Void) {
    defer {
      close(hubEnds.stdout)
      close(hubEnds.stderr)
      close(stopEvent)
      done.signal()
    }
    var pending: [Stream: [UInt8]] = [.stdout: [], .stderr: []]
    var budget = LogBudget(burst: 200, interval: 10)
    var open: [Stream: Int32] = [.stdout: hubEnds.stdout, .stderr: hubEnds.stderr]
    var buffer = [UInt8](repeating: 0, count: 65536)
    func line(_ stream: Stream, _ bytes: ArraySlice<UInt8>) {
      let now = SystemClock().now
      for summary in budget.dueSummaries(now: now) {
        emit(
          Stream(rawValue: summary.kind) ?? .stderr,
          "\(summary.suppressed) more lines suppressed in the last \(Int(summary.seconds)) s")
      }
      guard budget.admit(stream.rawValue, now: now) else { return }
      emit(stream, String(decoding: bytes, as: UTF8.self))
    }
    reading: while !open.isEmpty {
      let streams = Array(open.keys)
      var descriptors = streams.map { pollfd(fd: open[$0]!, events: Int16(POLLIN), revents: 0) }
      descriptors.append(pollfd(fd: stopEvent, events: Int16(POLLIN), revents: 0))
      guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else { break }
      if descriptors.last!.revents != 0 { break reading }
      for (index, stream) in streams.enumerated() where descriptors[index].revents != 0 {
        let got = read(descriptors[index].fd, &buffer, buffer.count)
        if got < 0, errno == EINTR || errno == EAGAIN { continue }
        guard got > 0 else {
          open[stream] = nil
          continue
        }
        pending[stream, default: []].append(contentsOf: buffer[0..<got])
        var bytes = pending[stream]!
        var start = 0
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
          line(stream, bytes[start..<newline])
          start = newline + 1
        }
        while bytes.count - start >= Self.lineLimit {
          line(stream, bytes[start..<(start + Self.lineLimit)])
          start += Self.lineLimit
        }
        bytes.removeFirst(start)
        pending[stream] = bytes
      }
    }
    for stream in [Stream.stdout, .stderr] where !(pending[stream] ?? []).isEmpty {
      line(stream, pending[stream]![...])
    }
    for summary in budget.dueSummaries(now: .infinity) {
      emit(Stream(rawValue: summary.kind) ?? .stderr, "\(summary.suppressed) more lines suppressed at its end")
    }
  }
}
