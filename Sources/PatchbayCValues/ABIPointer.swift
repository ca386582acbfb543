/// A C pointer (or a plain struct of them) that crosses threads because the plugin ABI,
/// `patchbay/plugin.h`, says which thread may touch the memory behind it and when. Swift
/// cannot check those rules; every use names the one it relies on. Shared by the plugin host
/// and the plugin kit, the two sides of the ABI.
public struct ABIPointer<Pointer>: @unchecked Sendable {  // C boundary: plugin.h's thread rules make it safe.
  public let pointer: Pointer

  public init(_ pointer: Pointer) { self.pointer = pointer }
}
