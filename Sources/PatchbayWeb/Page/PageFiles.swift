import Foundation

/// The dashboard's files (index.html, app.js, household.js, style.css), read once at start: the page a process
/// serves stays the one that matches its API, even while a package upgrade replaces the files.
struct PageFiles: Sendable {
  static let names = ["index.html", "app.js", "household.js", "style.css"]

  let directory: String
  let html: String
  let script: String
  let householdScript: String
  let style: String

  struct Missing: Error, CustomStringConvertible {
    var description: String
  }

  init(directory: String) throws(Missing) {
    func read(_ name: String) throws(Missing) -> String {
      guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
        throw Missing(description: "cannot read the dashboard's \(name) in \(directory)")
      }
      return String(decoding: data, as: UTF8.self)
    }
    self.directory = directory
    html = try read("index.html")
    script = try read("app.js")
    householdScript = try read("household.js")
    style = try read("style.css")
  }
}
