// Tests start their programs with `ChildProcess` (module ChildProcesses), re-exported here.
@_exported import ChildProcesses

/// Runs a program to completion and returns its exit status and merged output.
public func runProgram(_ executable: String, _ arguments: [String], within seconds: Double = 120) throws
  -> (status: Int32, output: String)
{
  try ChildProcess.run(executable, arguments, within: seconds)
}
