import Foundation

extension Hub {
  /// A control connection came from the process tree under the plugin host `hostPID` (the
  /// hub's child): refused by the control server, counted and logged on that instance. False
  /// when no instance runs that host (an escaped descendant of a host that already ended).
  package func noteControlRefusal(hostPID: Int32, peer: Int32) -> Bool {
    guard let supervisor = instances.values.first(where: { $0.pid == hostPID }) else { return false }
    supervisor.noteControlRefusal(peer: peer)
    return true
  }
}
