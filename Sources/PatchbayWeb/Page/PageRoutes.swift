import Foundation
import HTTPTypes
import Hummingbird

/// The dashboard's files (read at start: `PageFiles`) and the login form.
struct PageRoutes: Sendable {
  let policy: AccessPolicy
  let files: PageFiles

  func register(on router: Router<WebRequestContext>) {
    router.get("/") { _, _ in page(files.html, "text/html; charset=utf-8") }
    router.get("app.js") { _, _ in page(files.script, "text/javascript; charset=utf-8") }
    router.get("household.js") { _, _ in page(files.householdScript, "text/javascript; charset=utf-8") }
    router.get("style.css") { _, _ in page(files.style, "text/css; charset=utf-8") }
    router.get("login") { _, _ in page(LoginPage.html(failed: false), "text/html; charset=utf-8") }
    router.post("login") { request, context in
      let address = context.remoteAddress?.ipAddress ?? "unknown"
      if let wait = policy.logins.wait(for: address) {
        let seconds = Int(wait.components.seconds) + 1
        var response = page(LoginPage.html(failed: true, waitSeconds: seconds), "text/html; charset=utf-8")
        response.status = .tooManyRequests
        response.headers[.retryAfter] = String(seconds)
        return response
      }
      var request = request
      let body = try await request.collectBody(upTo: 4096)
      let form = try? URLEncodedFormDecoder().decode(
        LoginForm.self, from: String(decoding: body.readableBytesView, as: UTF8.self))
      guard let form, let session = policy.logIn(with: form.token) else {
        policy.loginFailed(from: address)
        var response = page(LoginPage.html(failed: true), "text/html; charset=utf-8")
        response.status = .unauthorized
        return response
      }
      policy.logins.succeeded(from: address)
      // HttpOnly: no script reads it; SameSite=Strict: no other site's request carries it.
      let cookie = "\(AccessPolicy.sessionCookie)=\(session.session); Path=/; HttpOnly; SameSite=Strict"
      return Response(status: .seeOther, headers: [.location: "/", .setCookie: cookie])
    }
    // A POST with the session's CSRF header (the access middleware checks it): the session
    // ends here and in the browser.
    router.post("logout") { request, _ in
      if let session = request.cookies[AccessPolicy.sessionCookie]?.value { policy.logOut(session: session) }
      let expired = "\(AccessPolicy.sessionCookie)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
      return Response(status: .seeOther, headers: [.location: "/login", .setCookie: expired])
    }
  }

  struct LoginForm: Decodable {
    var token: String
  }

  private func page(_ text: String, _ type: String) -> Response {
    var response = APIResponse.text(text, contentType: type)
    response.headers[.contentSecurityPolicy] =
      "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
    response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
    return response
  }
}
