import Foundation
import ScheduleProtocol

/// Instants for the tests, written as wall-clock times with their offset.
func instant(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0, offset: Int64)
  -> Int64
{
  LocalDateTime(year, month, day, hour, minute, second).localSeconds - offset
}

func zone(_ name: String) -> ZoneRules { ZoneRules(identifier: name)! }

let berlin = zone("Europe/Berlin")
let newYork = zone("America/New_York")

/// The next `count` occurrences of a cron expression after `start`, as wall times with offsets.
func occurrences(_ cron: String, after start: Int64, in zone: ZoneRules, count: Int) throws -> [String] {
  let expression = try CronExpression(cron)
  let planner = SchedulePlanner(triggers: [], zone: zone, state: ScheduleState())
  var cursor = start
  var result: [String] = []
  for _ in 0..<count {
    guard let next = expression.nextOccurrence(after: cursor, in: zone) else { break }
    result.append(planner.describe(next))
    cursor = next
  }
  return result
}
