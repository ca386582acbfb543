import ArgumentParser
import AsyncHTTPClient
import Foundation
import HueProtocol
import NIOCore
import PatchbayValues

/// `patchbay hue pair BRIDGE`: the link-button flow. Asks the bridge for a username, which it
/// refuses (error 101) until its link button was pressed; retries about once a second until
/// then, and prints the config snippet with the new username.
struct HuePairCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pair",
    abstract: "Get a username from a Hue bridge: run this, then press the bridge's link button.",
    discussion:
      "The username is a secret: it controls every light of the bridge. Keep the config readable by the hub only.")

  @Argument(help: "The bridge's address: host, host:port or http://host:port.") var bridge: String
  @Option(help: "Give up after this many seconds.") var timeout: Double = 30
  @Option(help: "The hue instance name to use in the printed config snippet.") var instance = "lights"
  @Option(help: "How this client is named in the bridge's app list (APP#DEVICE, at most 40 characters).")
  var deviceType = "patchbay#\(ProcessInfo.processInfo.hostName.prefix(30))"

  func run() async throws {
    let address: BridgeAddress
    do throws(BridgeAddressError) {
      address = try BridgeAddress(parsing: bridge)
    } catch {
      printError("bridge '\(bridge)': \(error.description)")
      throw ExitCode(2)
    }
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
      try await pair(client, address)
    } catch {
      try? await client.shutdown()
      throw error
    }
    try? await client.shutdown()
  }

  private func pair(_ client: HTTPClient, _ address: BridgeAddress) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    var asked = false
    var lastProblem: String?
    while true {
      switch await attempt(client, address) {
      case .paired(let username):
        say("Paired with the bridge at \(address).")
        say("")
        say("Add this to your config (the username is a secret: it controls every light of the bridge):")
        say("")
        say("[instances.\(instance)]")
        say("plugin = \"hue\"")
        say("bridge = \"\(address)\"")
        say("username = \"\(username)\"")
        say("[[instances.\(instance).groups]]")
        say("name = \"all\"")
        say("id = \"0\"                 # group 0 holds every light; list yours with bridge group ids")
        return
      case .pressButton:
        if !asked {
          say("Press the link button on the bridge at \(address) (waiting up to \(Int(timeout)) s)...")
          asked = true
        }
        lastProblem = "the link button was not pressed within \(Int(timeout)) s"
      case .failed(let problem, let retry):
        if lastProblem != problem { say("The bridge at \(address): \(problem)\(retry ? "; retrying" : "")") }
        lastProblem = problem
        guard retry else { throw ExitCode(1) }
      }
      guard Date().addingTimeInterval(1) < deadline else {
        printError("not paired: \(lastProblem ?? "no answer")")
        throw ExitCode(1)
      }
      // The bridge only says whether its button was pressed when asked again: ask once a second.
      try await Task.sleep(for: .seconds(1))
    }
  }

  enum Outcome {
    case paired(username: String)
    case pressButton
    case failed(String, retry: Bool)
  }

  private func attempt(_ client: HTTPClient, _ address: BridgeAddress) async -> Outcome {
    let body = JSONValue.sortedObject(["devicetype": .string(String(deviceType.prefix(40)))]).text
    let response: HTTPClient.Response
    do {
      let request = try HTTPClient.Request(
        url: address.baseURL + "/api", method: .POST, headers: ["Content-Type": "application/json"], body: .string(body)
      )
      response = try await client.execute(request: request, deadline: .now() + .seconds(5)).get()
    } catch {
      return .failed("no answer (\(error))", retry: true)
    }
    guard response.status.code == 200 else { return .failed("HTTP \(response.status.code)", retry: true) }
    let data = response.body.map { Data($0.readableBytesView) } ?? Data()
    do throws(HueParseError) {
      let results = try HueAnswerParser.results(data)
      if let username = results.successes.first(where: { $0.address == "username" })?.value.stringValue {
        return .paired(username: username)
      }
      if results.errors.contains(where: { $0.known == .linkButtonNotPressed }) { return .pressButton }
      return .failed(results.errors.map(\.description).joined(separator: "; "), retry: false)
    } catch {
      return .failed(error.description, retry: true)
    }
  }
}
