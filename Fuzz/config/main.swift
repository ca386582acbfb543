import Foundation
import PatchbayHub

// libFuzzer target for the config loader: any bytes as a config file must give a config or
// diagnostics, never a crash. SwiftPM renames an executable's main, so this main hands
// control to libFuzzer's driver itself.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("patchbay-config-fuzz-\(getpid())")
let file = directory.appendingPathComponent("patchbay.toml").path
try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  FileManager.default.createFile(atPath: file, contents: data.map { Data(bytes: $0, count: size) } ?? Data())
  let (config, diagnostics) = ConfigLoader().loadCollectingErrors(mainFile: file)
  for diagnostic in diagnostics { precondition(!diagnostic.description.isEmpty) }
  _ = config.instances.map(\.identity)
  return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzConfig(data, size) })
