import ArgumentParser
import PatchbayHub

/// `patchbay scene NAME`.
struct SceneCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scene",
    abstract: "Activate a scene: every port it lists gets its value at once (like routing an event to scene.NAME).")
  @OptionGroup var options: ConfigOptions
  @Argument(help: "The scene's name, as in [scenes.NAME].") var name: String

  func run() throws {
    let response = try ask(
      ControlRequest(command: .send, address: "\(SceneSpec.instanceName).\(name)", value: "trigger"), options)
    print(response.message.map { $0.replacingOccurrences(of: "sent trigger to ", with: "activated ") } ?? "activated")
  }
}
