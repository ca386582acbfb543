/// What one instance may touch and what its host confirmed, for `patchbay status --sandbox`.
public struct SandboxStatus: Sendable, Codable, Equatable {
  /// What the hub granted (the host adds the system's libraries and files: docs/architecture.md).
  public var policy: SandboxPolicy
  /// The Landlock ABI the running host enforces (0: none); nil until the host reports.
  public var landlockABI: Int?
  /// TCP connect and bind are confined to the listed ports.
  public var networkConfined: Bool
  /// The plugin may not signal processes outside its own (Landlock ABI 6).
  public var signalsScoped: Bool
  public var seccomp: Bool
  /// System calls the seccomp filter refused (EPERM), over the instance's processes.
  public var refusedCalls: Int

  public init(
    policy: SandboxPolicy, landlockABI: Int?, networkConfined: Bool, signalsScoped: Bool, seccomp: Bool,
    refusedCalls: Int
  ) {
    self.policy = policy
    self.landlockABI = landlockABI
    self.networkConfined = networkConfined
    self.signalsScoped = signalsScoped
    self.seccomp = seccomp
    self.refusedCalls = refusedCalls
  }
}
