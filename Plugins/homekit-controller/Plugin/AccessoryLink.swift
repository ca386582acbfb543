import HAP
import PatchbayValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The connection to the paired accessory, kept up: pair-verify, read `/accessories` (cached for
/// the next start), publish the current values, subscribe to every characteristic it follows,
/// then turn events into values while the writer sends what is pending, one request at a time.
/// A dropped connection is verified again with back-off (1 s doubling to 60 s), at once when mDNS
/// says the accessory moved; an accessory that no longer knows this controller is reported once
/// and tried again only every 10 minutes.
final class AccessoryLink: Sendable {
  struct Callbacks: Sendable {
    /// A characteristic's value, as read or as an event.
    var value: @Sendable (HAPCharacteristicValue) -> Void
    var connected: @Sendable (Bool) -> Void
    var log: @Sendable (_ warning: Bool, _ message: String) -> Void
    /// The accessory's database as just read.
    var database: @Sendable (JSONValue) -> Void
  }

  let controller: HAPController
  let accessory: HAPPairedAccessory
  let locator: AccessoryLocator
  let name: String
  let instance: String
  let pending: PendingWrites
  let follows: @Sendable () -> (read: [HAPCharacteristicID], subscribe: [HAPCharacteristicID])
  let callbacks: Callbacks

  init(
    controller: HAPController, accessory: HAPPairedAccessory, locator: AccessoryLocator, name: String,
    instance: String, pending: PendingWrites,
    follows: @escaping @Sendable () -> (read: [HAPCharacteristicID], subscribe: [HAPCharacteristicID]),
    callbacks: Callbacks
  ) {
    self.controller = controller
    self.accessory = accessory
    self.locator = locator
    self.name = name
    self.instance = instance
    self.pending = pending
    self.follows = follows
    self.callbacks = callbacks
  }

  static let longestBackoff = 60.0
  static let afterAuthenticationFailure = 600.0

  func run() async {
    var delay = 1.0
    var reportedAuthentication = false
    var failures = 0
    while !Task.isCancelled {
      let location = locator.now
      do {
        let session = try await controller.connect(host: location.host, port: location.port, accessory: accessory)
        callbacks.log(false, "connected to \(name) (\(accessory.pairingID)) at \(location)")
        reportedAuthentication = false
        failures = 0
        delay = 1
        do {
          try await serve(session)
        } catch {
          if !Task.isCancelled { callbacks.log(true, "lost \(name): \(error); connecting again") }
        }
        await session.close()
        pending.endWakes()
        callbacks.connected(false)
      } catch  where error.isAuthentication {
        callbacks.connected(false)
        if !reportedAuthentication {
          reportedAuthentication = true
          callbacks.log(
            true,
            "\(name) (\(accessory.pairingID)) no longer knows this controller: its pairing was removed or the "
              + "accessory was reset. Pair again: 'patchbay homekit-controller unpair \(instance) --forget', then "
              + "'patchbay homekit-controller pair \(instance) --device \(accessory.pairingID) --code XXX-XX-XXX' "
              + "(trying again every \(Int(Self.afterAuthenticationFailure / 60)) minutes meanwhile)")
        }
        await locator.wait(seconds: Self.afterAuthenticationFailure, awayFrom: location)
        continue
      } catch {
        callbacks.connected(false)
        failures += 1
        // The first failure and then each time the wait grows: no log storm while it is away.
        if failures == 1 || delay < Self.longestBackoff {
          callbacks.log(true, "cannot reach \(name) at \(location): \(error); again in \(Int(delay)) s")
        }
      }
      await locator.wait(seconds: delay, awayFrom: location)
      // Moved: the new place is tried at once, and from the shortest wait.
      delay = locator.now == location ? min(delay * 2, Self.longestBackoff) : 1
    }
  }

  private func serve(_ session: HAPClientSession) async throws {
    callbacks.database(try await session.accessories())
    let ids = follows()
    if !ids.read.isEmpty {
      for result in try await session.read(ids.read) where result.status == .success {
        if let value = result.value { callbacks.value(HAPCharacteristicValue(id: result.id, value: value)) }
      }
    }
    if !ids.subscribe.isEmpty {
      let refused = try await session.subscribe(ids.subscribe).filter { $0.status != .success }
      if !refused.isEmpty {
        callbacks.log(true, "\(name) refused events for \(refused.map { "\($0.id): \($0.status)" })")
      }
    }
    callbacks.connected(true)
    let wakes = pending.wakes()
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { [callbacks] in
        for await event in session.events { callbacks.value(event) }
        throw HAPClientError.connectionClosed
      }
      group.addTask { [pending, callbacks, name] in
        for await _ in wakes {
          let writes = pending.take()
          if writes.isEmpty { continue }
          let results: [HAPWriteResult]
          do {
            results = try await session.write(writes)
          } catch {
            pending.restore(writes)
            throw error
          }
          for (write, result) in zip(writes, results) {
            if result.status == .success {
              // Taken: the state outputs follow (an accessory sends no event to the writer itself).
              callbacks.value(HAPCharacteristicValue(id: write.id, value: write.value))
            } else {
              callbacks.log(true, "\(name) refused the write to \(result.id): HAP status \(result.status)")
            }
          }
        }
      }
      try await group.next()
      group.cancelAll()
    }
  }
}

extension Error {
  var isAuthentication: Bool { (self as? HAPClientError)?.isAuthentication == true }
}
