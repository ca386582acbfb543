import HAP
import HAPDiscovery

/// `discover`'s table: name, device id, category, paired or not, address.
enum AccessoryTable {
  static let categories: [Int: String] = [
    1: "other", 2: "bridge", 3: "fan", 4: "garage door", 5: "lightbulb", 6: "door lock", 7: "outlet", 8: "switch",
    9: "thermostat", 10: "sensor", 11: "security system", 12: "door", 13: "window", 14: "window covering",
    15: "programmable switch", 17: "ip camera", 18: "video doorbell", 19: "air purifier", 20: "heater",
    21: "air conditioner", 22: "humidifier", 23: "dehumidifier", 28: "sprinkler", 29: "faucet", 30: "shower",
    32: "television",
  ]

  static func render(_ services: [HAPBrowser.Service]) -> String {
    let rows = services.map { service -> [String] in
      let category = service.txt["ci"].flatMap(Int.init).map { categories[$0] ?? "category \($0)" } ?? "?"
      // sf=1: not paired yet (discoverable); 0: paired with a controller.
      let paired = service.txt["sf"].map { $0 == "0" ? "yes" : "no" } ?? "?"
      let host = service.address.contains(":") ? "[\(service.address)]" : service.address
      return [service.name, service.txt["id"] ?? "?", category, paired, "\(host):\(service.port)"]
    }
    let header = ["NAME", "DEVICE ID", "CATEGORY", "PAIRED", "ADDRESS"]
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    return ([header] + rows).map { row in
      row.enumerated().map { index, cell in
        index == row.count - 1 ? cell : cell.padding(toLength: widths[index] + 2, withPad: " ", startingAt: 0)
      }.joined()
    }.joined(separator: "\n")
  }
}
