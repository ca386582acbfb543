import CPatchbayPlugin
import Foundation
import PatchbayPluginKit
import Synchronization
import Testing

/// The Swift kit seen from the host's side: its descriptor, errors and timers, called through
/// the C ABI with a host table of the test's own (the kit builds one descriptor per process).
@Suite(.serialized) struct KitThroughTheCABITests {
  /// The kit builds it once and returns the same one after.
  static var descriptor: pb_plugin_descriptor {
    PluginExport.descriptor(
      for: KitProbePlugin.self, name: "kit-probe", version: "1.0.0", description: "the kit's test plugin"
    ).assumingMemoryBound(to: pb_plugin_descriptor.self).pointee
  }

  /// Calls the descriptor's create with `config` and the host table `api`.
  static func create(_ config: String, api: pb_host_api) -> (status: pb_status, message: [UInt8]) {
    let table = UnsafeMutablePointer<pb_host_api>.allocate(capacity: 1)
    table.initialize(to: api)
    var args = pb_create_args(
      size: UInt32(MemoryLayout<pb_create_args>.size), reserved: 0, api: table,
      host: OpaquePointer(bitPattern: 1), instance_name: strdup("probe"), config_json: strdup(config),
      state_directory: strdup("/tmp"))
    var instance: UnsafeMutableRawPointer?
    var error = pb_error()
    let status = descriptor.create(&args, &instance, &error)
    if status == PB_OK { descriptor.destroy(instance) }
    let message = withUnsafeBytes(of: &error.message) { Array($0.prefix { $0 != 0 }) }
    return (status, message)
  }

  /// Issue 28.4: a plugin built with the kit today loads in an ABI 1.0 hub unless it declares
  /// it needs more: the kit checks everything newer at run time.
  @Test func theDescriptorAsksForTheLowestMinorTheKitNeeds() {
    #expect(Self.descriptor.abi_major == UInt32(PB_ABI_MAJOR))
    #expect(Self.descriptor.abi_minor == 0)
    #expect(PluginExport.kitMinimumABIMinor == 0)
  }

  /// Issue 28.4: an error message longer than the host's buffer is cut between characters.
  @Test func aLongErrorMessageIsCutAtACharacterBoundary() throws {
    // 510 ASCII bytes, then two-byte characters: the 511 bytes the buffer holds end inside one.
    let message = String(repeating: "a", count: 510) + String(repeating: "é", count: 20)
    let config = #"{"mode":"fail","message":"\#(message)"}"#
    let (status, bytes) = Self.create(config, api: FakeHost.api(size: MemoryLayout<pb_host_api>.size))
    #expect(status == PB_ERR_INVALID_CONFIG)
    let text = try #require(String(validating: bytes, as: UTF8.self), "not valid UTF-8: \(bytes.suffix(4))")
    #expect(text == String(repeating: "a", count: 510))
  }

  /// Issue 28.4: a cancelled timer's closure is released (ABI 1.2's schedule_with_release).
  @Test func aCancelledTimersClosureIsReleased() {
    FakeHost.reset()
    let (status, _) = Self.create(#"{"mode":"timer"}"#, api: FakeHost.api(size: MemoryLayout<pb_host_api>.size))
    #expect(status == PB_OK)
    #expect(FakeHost.calls.withLock { $0 } == ["schedule_with_release", "cancel_timer"])
    #expect(KitProbePlugin.trackerReleased.withLock { $0 })
  }

  /// On a host older than ABI 1.2 the kit falls back to schedule() (the closure then stays).
  @Test func anOlderHostGetsThePlainSchedule() {
    FakeHost.reset()
    let olderSize = MemoryLayout<pb_host_api>.offset(of: \.schedule_with_release)!
    let (status, _) = Self.create(#"{"mode":"timer"}"#, api: FakeHost.api(size: olderSize))
    #expect(status == PB_OK)
    #expect(FakeHost.calls.withLock { $0 } == ["schedule", "cancel_timer"])
  }

  /// Issue 28.4: error codes are a struct, so a later code does not break a plugin's switch.
  @Test func errorCodesCoverTheHeadersStatusList() {
    #expect(PluginError.Code(rawValue: PB_ERR_BUSY) == .busy)
    #expect(PluginError.Code.notFound.rawValue == PB_ERR_NOT_FOUND)
    #expect(PluginError(.noMemory, "full").code.rawValue == PB_ERR_NO_MEMORY)
  }
}

/// Scheduled with a closure that holds a tracker, then cancelled at once.
final class KitProbePlugin: PatchbayPlugin {
  static let trackerReleased = Mutex(false)

  final class Tracker: Sendable {
    deinit { KitProbePlugin.trackerReleased.withLock { $0 = true } }
  }

  struct Config: Decodable {
    var mode: String
    var message: String?
  }

  init(context: PluginContext) throws {
    let config = try context.config(Config.self)
    switch config.mode {
    case "fail":
      throw PluginError(.invalidConfig, config.message ?? "")
    default:
      KitProbePlugin.trackerReleased.withLock { $0 = false }
      let tracker = Tracker()
      let id = context.schedule(after: .seconds(3600)) { _ = tracker }
      context.cancel(timer: id)
    }
  }

  func receive(_ value: Value, on port: InputPort) throws {}
}

/// A host table whose timer calls are recorded; cancel_timer releases like the real host.
enum FakeHost {
  static let calls = Mutex<[String]>([])
  // The one pending timer's release function and data (the tests are serialized).
  nonisolated(unsafe) static var pending: (release: pb_release_fn?, data: UnsafeMutableRawPointer?)?

  static func reset() {
    calls.withLock { $0 = [] }
    pending = nil
  }

  static func api(size: Int) -> pb_host_api {
    var api = pb_host_api()
    api.size = UInt32(size)
    api.abi_major = UInt32(PB_ABI_MAJOR)
    api.abi_minor = UInt32(PB_ABI_MINOR)
    api.schedule = { _, _, _, _, id in
      FakeHost.calls.withLock { $0.append("schedule") }
      id?.pointee = 1
      return PB_OK
    }
    api.cancel_timer = { _, _ in
      FakeHost.calls.withLock { $0.append("cancel_timer") }
      if let pending = FakeHost.pending {
        FakeHost.pending = nil
        pending.release?(pending.data)
      }
      return PB_OK
    }
    if size > MemoryLayout<pb_host_api>.offset(of: \.schedule_with_release)! {
      api.schedule_with_release = { _, _, _, release, data, id in
        FakeHost.calls.withLock { $0.append("schedule_with_release") }
        FakeHost.pending = (release, data)
        id?.pointee = 1
        return PB_OK
      }
    }
    return api
  }
}
