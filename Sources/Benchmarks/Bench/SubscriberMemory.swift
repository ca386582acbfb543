/// The libmosquitto C subscriber's memory: the baseline for a plugin process's.
struct SubscriberMemory: Sendable {
  var rssMiB: Double?
  var pssMiB: Double?
}
