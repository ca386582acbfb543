/// The login form, the one page made here rather than read from the page directory: it is shown
/// before a session exists, and says whether the last try failed.
enum LoginPage {
  static func html(failed: Bool, waitSeconds: Int? = nil) -> String {
    """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
    <title>patchbay: log in</title><link rel="stylesheet" href="/style.css"></head>
    <body><main class="login"><h1>patchbay</h1>
    <form method="post" action="/login">
    <label>Access token <input type="password" name="token" autocomplete="current-password" autofocus></label>
    <button type="submit">Log in</button></form>
    \(waitSeconds.map { "<p class=\"error\">Too many wrong tokens from here: try again in \($0) s.</p>" }
      ?? (failed ? "<p class=\"error\">That token is not right.</p>" : ""))
    </main></body></html>
    """
  }
}
