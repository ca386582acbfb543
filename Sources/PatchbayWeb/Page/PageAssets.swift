/// The dashboard, embedded as Swift strings so the one binary is the whole web server (no
/// resource bundle to find at run time). HTML in PageHTML.swift, script in PageScript.swift,
/// style in PageStyle.swift.
enum PageAssets {
  static var html: String { pageHTML }
  static var script: String { pageScript }
  static var style: String { pageStyle }

  static func login(failed: Bool) -> String {
    """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
    <title>patchbay: log in</title><link rel="stylesheet" href="/style.css"></head>
    <body><main class="login"><h1>patchbay</h1>
    <form method="post" action="/login">
    <label>Access token <input type="password" name="token" autocomplete="current-password" autofocus></label>
    <button type="submit">Log in</button></form>
    \(failed ? "<p class=\"error\">That token is not right.</p>" : "")
    </main></body></html>
    """
  }
}
