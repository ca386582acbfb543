import Testing

@testable import HuePlugin

@Suite struct CommandBudgetTests {
  /// Sends whenever the budget allows, with random delays on the way to the bridge and back;
  /// the bridge's arrivals never exceed the budget in any window.
  func arrivals(rate: Double, seconds: Double) -> (times: [Double], budget: CommandBudget) {
    var budget = CommandBudget(rate: rate)
    var arrivals: [Double] = []
    var inFlight: [Double] = []  // answer times
    var now = 0.0
    while now < seconds {
      for _ in inFlight.filter({ $0 <= now }) { budget.answered(now: now) }
      inFlight.removeAll { $0 <= now }
      if budget.allows(now: now) {
        budget.sent(now: now)
        let arrival = now + Double.random(in: 0...0.3)
        arrivals.append(arrival)
        inFlight.append(arrival + Double.random(in: 0...0.2))
      }
      now += 0.001
    }
    return (arrivals.sorted(), budget)
  }

  @Test func noDelayOnTheWayShowsTheBridgeMoreThanTheRate() {
    let (times, budget) = arrivals(rate: 10, seconds: 20)
    #expect(budget.capacity == 10 && budget.window == 1)
    #expect(times.count > 80)
    for index in times.indices {
      #expect(times[index...].prefix { $0 < times[index] + budget.window }.count <= budget.capacity)
    }
  }

  @Test func ratesBelowOnePerSecondGetALongerWindow() {
    let (times, budget) = arrivals(rate: 0.25, seconds: 40)
    #expect(budget.capacity == 1 && budget.window == 4)
    #expect(times.count >= 7)
    for (earlier, later) in zip(times, times.dropFirst()) { #expect(later - earlier >= 4) }
  }

  @Test func anAnswerFreesTheBudgetOneWindowLater() {
    var budget = CommandBudget(rate: 1)
    #expect(budget.allows(now: 0))
    budget.sent(now: 0)
    #expect(budget.nextTime(after: 0.5) == nil)  // waits for the answer
    budget.answered(now: 0.7)
    #expect(budget.nextTime(after: 0.8) == 1.7)
    #expect(budget.allows(now: 1.7))
  }
}
