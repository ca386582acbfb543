/// Why a cron expression was refused: which field, and what is wrong with it.
public struct CronError: Error, Sendable, Equatable, CustomStringConvertible {
  public var field: CronField.Kind?
  public var text: String
  public var problem: String

  public init(_ field: CronField.Kind?, _ text: String, _ problem: String) {
    self.field = field
    self.text = text
    self.problem = problem
  }

  public var description: String {
    guard let field else { return problem }
    return "\(field.name) field '\(text)': \(problem)"
  }
}
