import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What a local user or a script may try against patchbay-web: use it without being allowed
/// to use the hub, hold its connections open, guess the token, or flood its sessions.
@Suite(.serialized) struct WebAbuseTests {
  /// Without a token, a loopback client who may not use the hub's control socket (here
  /// `nobody`; the socket is 0660 root:root) is refused; root, who may, is served.
  @Test(.enabled(if: getuid() == 0, "running curl as nobody needs root"))
  func withoutATokenOnlyUsersOfTheControlSocketAreServed() throws {
    let harness = try WebHarness()
    try harness.startHub()
    try harness.startWeb()
    let asNobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
    func curl(_ user: [String], _ arguments: [String]) throws -> (status: Int, body: String) {
      let result = try runProgram(
        user.first ?? "/usr/bin/env",
        Array(user.dropFirst()) + (user.isEmpty ? [] : ["/usr/bin/env"])
          + ["curl", "-s", "-S", "--max-time", "30", "-w", "\n%{http_code}\n"] + arguments, within: 60)
      var lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      let code = Int(lines.popLast() ?? "") ?? 0
      return (code, lines.joined(separator: "\n"))
    }
    let session = try curl(asNobody, [harness.base + "/api/session"])
    #expect(session.status == 403, "\(session.body)")
    #expect(session.body.contains("uid 65534"), "\(session.body)")
    #expect(!session.body.contains("csrf\""), "\(session.body)")
    let page = try curl(asNobody, [harness.base + "/"])
    #expect(page.status == 403)
    // Even with the CSRF value (which it could not read), a state change is refused.
    let csrf = try HTTPCall.csrf(harness.base)
    #expect(!csrf.isEmpty)
    let restart = try curl(
      asNobody,
      [
        "-X", "POST", "-H", "Content-Type: application/json", "-H", "X-Patchbay-CSRF: \(csrf)", "--data",
        #"{"instance":"probe"}"#, harness.base + "/api/restart",
      ])
    #expect(restart.status == 403, "\(restart.body)")
    // Root may use the socket: served.
    #expect(try HTTPCall.get(harness.base + "/api/status").status == 200)
    try harness.stop()
  }

  /// Under the unit's /proc (ProcSubset=pid, ProtectProc=invisible: no /proc/net), the
  /// client's user is still found: root is served, nobody is refused by uid.
  @Test(.enabled(if: getuid() == 0, "mounting /proc and running curl as nobody need root"))
  func theUnitsProcSubsetStillNamesTheClient() throws {
    let harness = try WebHarness()
    try harness.startHub()
    let unitProc = [
      "/usr/bin/unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
      #"mount -t proc -o subset=pid,hidepid=invisible proc /proc && exec "$@""#, "unit-proc",
    ]
    try harness.startWeb(launcher: unitProc)
    #expect(try HTTPCall.get(harness.base + "/api/status").status == 200)
    let nobody = try runProgram(
      "/usr/bin/setpriv",
      [
        "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", "/usr/bin/env", "curl", "-s", "-S",
        "--max-time", "30", harness.base + "/api/session",
      ], within: 60)
    #expect(nobody.output.contains("uid 65534"), "\(nobody.output)")
    try harness.stop()
  }

  /// Wrong tokens shut the address out of the login form for a growing time (429 with
  /// Retry-After), the right token included while it lasts, and the log says so.
  @Test func wrongTokensAreThrottledPerAddress() throws {
    let harness = try WebHarness()
    try harness.startHub()
    let token = "throttle-token-for-the-test-0123456789"
    try harness.startWeb(extra: ["--token-file", try harness.directory.write("token", token + "\n")])
    var statuses: [Int] = []
    for _ in 0..<8 {
      statuses.append(try HTTPCall.run(harness.base + "/login", ["-X", "POST", "--data", "token=wrong-guess"]).status)
    }
    #expect(Array(statuses.prefix(5)) == [401, 401, 401, 401, 401], "\(statuses)")
    #expect(statuses.contains(429), "no back-off after 8 wrong tokens: \(statuses)")
    let headers = harness.directory.path + "/headers.txt"
    let right = try HTTPCall.run(
      harness.base + "/login", ["-X", "POST", "--data-urlencode", "token=\(token)", "-D", headers])
    #expect(right.status == 429, "the right token went through during the back-off")
    #expect((try String(contentsOfFile: headers, encoding: .utf8)).lowercased().contains("retry-after:"))
    try harness.web!.waitForLine(containing: "wrong access tokens from 127.0.0.1", within: 30)
    // After the wait, the right token logs in.
    try eventually("the right token is taken again", within: 120) {
      try HTTPCall.run(harness.base + "/login", ["-X", "POST", "--data-urlencode", "token=\(token)"]).status == 303
    }
    try harness.stop()
  }

  /// A loop of logins signs out only the least recently used session, logged; a session in
  /// use stays. Before, the 1,001st login cleared every session.
  @Test func aLoginLoopSignsOutOnlyTheLeastRecentlyUsedSession() throws {
    let harness = try WebHarness()
    try harness.startHub()
    let token = "sessions-token-for-the-test-0123456789"
    try harness.startWeb(extra: ["--token-file", try harness.directory.write("token", token + "\n")])
    let first = harness.directory.path + "/first.txt"
    let second = harness.directory.path + "/second.txt"
    for jar in [first, second] {
      #expect(
        try HTTPCall.run(harness.base + "/login", ["-X", "POST", "--data-urlencode", "token=\(token)", "-c", jar])
          .status == 303)
    }
    // The first session is used after the second was made: the second is the least recent.
    #expect(try HTTPCall.get(harness.base + "/api/status", ["-b", first]).status == 200)
    // 999 more logins fill the table (1,000) and take one place more.
    let loop = try runProgram(
      "/usr/bin/python3",
      [
        "-c",
        """
        import http.client, sys
        ok = 0
        for _ in range(999):
            c = http.client.HTTPConnection("127.0.0.1", \(harness.port), timeout=30)
            c.request("POST", "/login", "token=\(token)", {"Content-Type": "application/x-www-form-urlencoded"})
            ok += c.getresponse().status == 303
            c.close()
        print("logins", ok)
        """,
      ], within: 300)
    #expect(loop.output.contains("logins 999"), "\(loop.output)")
    #expect(
      try HTTPCall.get(harness.base + "/api/status", ["-b", first]).status == 200, "the session in use was signed out")
    #expect(try HTTPCall.get(harness.base + "/api/status", ["-b", second]).status == 401)
    try harness.web!.waitForLine(containing: "signed out the least recently used one", within: 30)
    try harness.stop()
  }

  /// POST /logout (with the session's CSRF header) ends the session.
  @Test func logOutEndsTheSession() throws {
    let harness = try WebHarness()
    try harness.startHub()
    let token = "logout-token-for-the-test-0123456789"
    try harness.startWeb(extra: ["--token-file", try harness.directory.write("token", token + "\n")])
    let jar = harness.directory.path + "/cookies.txt"
    #expect(
      try HTTPCall.run(harness.base + "/login", ["-X", "POST", "--data-urlencode", "token=\(token)", "-c", jar])
        .status == 303)
    let csrf = try HTTPCall.csrf(harness.base, ["-b", jar])
    // Without the CSRF header another site could sign the user out: refused.
    #expect(try HTTPCall.run(harness.base + "/logout", ["-X", "POST", "-b", jar]).status == 403)
    let out = try HTTPCall.run(
      harness.base + "/logout", ["-X", "POST", "-b", jar, "-c", jar, "-H", "X-Patchbay-CSRF: \(csrf)"])
    #expect(out.status == 303)
    #expect(try HTTPCall.get(harness.base + "/api/status", ["-b", jar]).status == 401)
    // The page has the button.
    #expect(
      try HTTPCall.get(harness.base + "/", ["-H", "Authorization: Bearer \(token)"]).body.contains(#"id="log-out""#))
    try harness.stop()
  }

  /// 300 connections that never finish their request head, and 10 whose body trickles: the
  /// server closes them (head and body time-outs) and the page answers again, while they go on.
  @Test func halfOpenRequestsAreClosedAndThePageAnswers() throws {
    let harness = try WebHarness()
    try harness.startHub()
    try harness.startWeb()
    let attack = try ChildProcess(
      "/usr/bin/python3",
      [
        WebScript.folder.appendingPathComponent("slowloris.py").path, String(harness.port), "300", "10",
        "240",
      ])
    defer { attack.signal(SIGKILL) }
    try attack.waitForLine(containing: "open 300 10", within: 120)
    try attack.waitForLine(containing: "closed head 300", within: 120)
    try attack.waitForLine(containing: "closed body 10", within: 120)
    #expect(attack.isRunning, "the attack ended before the server closed its connections")
    try eventually("the page answers", within: 60) { try HTTPCall.get(harness.base + "/").status == 200 }
    try harness.stop()
  }
}
