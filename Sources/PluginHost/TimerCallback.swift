import CPatchbayPlugin

/// A timer the plugin scheduled: its C function and user data, called once on the plugin
/// context, and (ABI 1.2) the function that releases the user data when the timer is done.
struct TimerCallback {
  let function: pb_timer_fn
  let release: pb_release_fn?
  let userData: UnsafeMutableRawPointer?
}
