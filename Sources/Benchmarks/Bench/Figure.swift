/// One row of the result table: a measured figure, the baseline measured in the same run for
/// it, and their ratio (the only number comparable between runs on a shared, noisy machine).
struct Figure: Codable, Sendable {
  var section: String
  var name: String
  var value: Double
  var unit: String
  var baselineName: String?
  var baseline: Double?
  var ratio: Double?
  var note: String?
  /// The baseline was to be measured in this run and failed (nil: it did not fail).
  var baselineFailed: Bool?

  init(
    _ section: String, _ name: String, _ value: Double, _ unit: String, baseline: (name: String, value: Double)?,
    note: String? = nil
  ) {
    self.section = section
    self.name = name
    self.value = value
    self.unit = unit
    baselineName = baseline?.name
    self.baseline = baseline?.value
    if let base = baseline?.value, base > 0 { ratio = value / base }
    self.note = note
  }
}
