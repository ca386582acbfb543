/// A helper process (broker, client, hub) did not do what a test needs.
struct TestSetupError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
