import CPatchbayPlugin

/// A timer the plugin scheduled: its C function and user data, called once on the plugin
/// context.
struct TimerCallback {
  let function: pb_timer_fn
  let userData: UnsafeMutableRawPointer?
}
