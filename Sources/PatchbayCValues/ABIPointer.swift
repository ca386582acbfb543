/// A C pointer (or a plain struct of them) that crosses threads because a C contract says which
/// thread may touch the memory behind it and when: the plugin ABI, `patchbay/plugin.h`, or a
/// library that locks its own state (threaded libmosquitto). Swift cannot check those rules;
/// every use names the one it relies on. Shared by the plugin host, the plugin kit (the two
/// sides of the ABI) and plugins that hold such a library's handle.
public struct ABIPointer<Pointer>: @unchecked Sendable {  // C boundary: the C side's thread rules make it safe.
  public let pointer: Pointer

  public init(_ pointer: Pointer) { self.pointer = pointer }
}
