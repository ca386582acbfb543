import ArgumentParser
import Foundation
import PatchbayHub

/// `patchbay status`.
struct StatusCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status", abstract: "Show instances (state, pid, uptime, messages, queue, drops) and routes.")
  @OptionGroup var options: ConfigOptions
  @Flag(help: "Print the raw JSON answer.") var json = false
  @Flag(help: "Show each instance's sandbox: what it may read, write, connect to and bind; refused calls.")
  var sandbox = false

  func run() throws {
    let response = try ask(ControlRequest(command: .status), options)
    guard let status = response.status else { throw ExitCode(1) }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      encoder.dateEncodingStrategy = .iso8601
      let data = sandbox ? try encoder.encode(SandboxTable.entries(status)) : try encoder.encode(status)
      print(String(decoding: data, as: UTF8.self))
    } else if sandbox {
      print(SandboxTable.render(status))
    } else {
      print(StatusTable.render(status))
    }
  }
}

/// `patchbay send INSTANCE.PORT VALUE`.
struct SendCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "send",
    abstract: "Send a value into an input port (or publish it on an output port, through its routes).")
  @OptionGroup var options: ConfigOptions
  @Argument(help: "INSTANCE.PORT") var address: String
  // Captured raw, so that a negative number (`-1`, `-0.5`, for a temperature) is a value and
  // not an unknown option.
  @Argument(
    parsing: .allUnrecognized,
    help: "The value: true, 42, -1, 0.5, \"text\", click, or JSON for colors and lights.")
  var value: [String] = []

  func validate() throws {
    guard value.count == 1 else {
      throw ValidationError(
        value.isEmpty ? "Missing expected argument '<value>'" : "Give one value (quote it if it has spaces)")
    }
  }

  func run() throws {
    let response = try ask(ControlRequest(command: .send, address: address, value: value[0]), options)
    print(response.message ?? "sent")
  }
}

/// `patchbay watch [PATTERN]`.
struct WatchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch", abstract: "Print values as they flow: INSTANCE.PORT VALUE, one per line.")
  @OptionGroup var options: ConfigOptions
  @Argument(help: "Only addresses starting with this (e.g. 'bedside' or 'lights.living.*').") var pattern: String = "*"

  func run() throws {
    do throws(ControlError) {
      try ControlClient.watch(pattern: pattern, socket: options.controlSocket()) { line in
        // Unbuffered, so a pipe (a test, `grep`) sees each value as it flows.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
      }
    } catch {
      printError(error.description)
      throw ExitCode(1)
    }
  }
}

/// `patchbay reload`.
struct ReloadCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reload", abstract: "Apply the changed config, restarting only what changed (like SIGHUP).")
  @OptionGroup var options: ConfigOptions

  func run() throws {
    // A file that does not load is reported as it is: the hub would refuse it anyway, and the
    // control socket may be named in the very file that does not parse. (What this user cannot
    // read is left to the hub, which may.)
    let (_, problems) = ConfigLoader.isolated.loadCollectingErrors(mainFile: options.config)
    if !problems.isEmpty, !problems.contains(where: { TOMLDocument.cannotRead($0.file) }) {
      printError("reload refused; the running hub is unchanged:\n\(ConfigErrors(problems))")
      throw ExitCode(1)
    }
    let response = try ask(ControlRequest(command: .reload), options)
    print(response.message ?? "reloaded")
  }
}

/// `patchbay restart INSTANCE`.
struct RestartCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "restart", abstract: "Start an instance afresh (also one marked failed).")
  @OptionGroup var options: ConfigOptions
  @Argument(help: "Instance name") var instance: String

  func run() throws {
    let response = try ask(ControlRequest(command: .restart, instance: instance), options)
    print(response.message ?? "restarting")
  }
}

/// Sends one request; a refusal prints the hub's message and exits 1.
func ask(_ request: ControlRequest, _ options: ConfigOptions) throws -> ControlResponse {
  let response: ControlResponse
  do throws(ControlError) {
    response = try ControlClient.request(request, socket: options.controlSocket())
  } catch {
    printError(error.description)
    throw ExitCode(1)
  }
  guard response.ok else {
    printError(response.message ?? "refused")
    throw ExitCode(1)
  }
  return response
}
