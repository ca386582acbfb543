/// One goal of issue 19 ("Goals to report against"): a ratio measured in this run against its
/// limit, met or missed, and for a miss what the run's own profile says bounds it.
struct Goal: Codable, Sendable {
  var goal: String
  /// The ratio's limit: at most (`atMost`) or at least.
  var limit: Double
  var atMost: Bool
  var ratio: Double?
  /// A condition besides the ratio (the event flood loses nothing); nil when there is none.
  var condition: Bool?
  /// nil when the run did not measure it (a section left out).
  var met: Bool?
  var verdict: String
  var note: String?

  init(goal: String, limit: Double, atMost: Bool, ratio: Double?, condition: Bool? = nil, note: String?) {
    self.goal = goal
    self.limit = limit
    self.atMost = atMost
    self.ratio = ratio
    self.condition = condition
    self.note = note
    met = ratio.map { (atMost ? $0 <= limit : $0 >= limit) && condition != false }
    verdict = met.map { $0 ? "met" : "missed" } ?? "not measured"
  }
}
