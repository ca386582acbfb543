import Foundation
import PatchbayValues
import Synchronization
import Testing

@testable import PatchbayCore
@testable import PatchbayHub

/// The state file is written from the delayed flush and from routing threads at once; every
/// version on disk must parse, and the last write must win.
@Suite struct HubStateStoreTests {
  @Test func concurrentWritesNeverPublishATornFile() throws {
    let directory = NSTemporaryDirectory() + "patchbay-store-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = StateFile(directory: directory)
    let store = HubStateStore(storage: file, clock: SystemClock())
    let writers = 4
    let rounds = 150
    let unreadable = ManagedCounter()
    let done = DispatchGroup()
    // A reader that keeps parsing whatever is published while the writers run.
    let reading = ManagedFlag()
    let readerDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      while !reading.isSet {
        if let data = FileManager.default.contents(atPath: file.path), !data.isEmpty,
          (try? JSONDecoder().decode(HubStateStore.Snapshot.self, from: data)) == nil
        {
          unreadable.increment()
        }
      }
      readerDone.signal()
    }
    for writer in 0..<writers {
      done.enter()
      Thread.detachNewThread {
        for round in 0..<rounds {
          // Long values make a torn write likely when two writers share one temp file.
          store.retain(.text(String(repeating: "\(writer)", count: 2000)), for: "w\(writer).text")
          store.setPosition(.init(cycle: round, target: writer), of: "route-\(writer)")
        }
        done.leave()
      }
    }
    done.wait()
    store.flush()
    reading.set()
    readerDone.wait()
    #expect(unreadable.value == 0)
    let final = try JSONDecoder().decode(
      HubStateStore.Snapshot.self, from: try #require(FileManager.default.contents(atPath: file.path)))
    for writer in 0..<writers { #expect(final.routes["route-\(writer)"]?.cycle == rounds - 1) }
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
    #expect(leftovers.isEmpty)
  }
}

final class ManagedCounter: Sendable {
  private let count = Mutex(0)
  func increment() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}

final class ManagedFlag: Sendable {
  private let flag = Mutex(false)
  func set() { flag.withLock { $0 = true } }
  var isSet: Bool { flag.withLock { $0 } }
}
