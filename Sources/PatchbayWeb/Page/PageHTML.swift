/// The dashboard's one page; app.js fills it from the API and the live stream.
let pageHTML = """
  <!doctype html>
  <html lang="en">
  <head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <title>patchbay</title>
  <link rel="stylesheet" href="/style.css">
  <script src="/app.js" defer></script>
  </head>
  <body>
  <header>
    <h1>patchbay</h1>
    <span id="hub-state" class="badge">connecting…</span>
    <span id="hub-info" class="muted"></span>
  </header>
  <div id="banner" class="banner" role="status" hidden></div>
  <main>
    <section id="instances-section">
      <h2>Instances</h2>
      <div id="instances" class="cards"></div>
    </section>
    <section id="ports-section">
      <h2>Ports</h2>
      <div id="ports"></div>
    </section>
    <section id="routes-section">
      <h2>Routes</h2>
      <div class="graph-wrap"><svg id="graph" role="img" aria-label="routes between instances"></svg></div>
      <ul id="inactive-routes" class="muted"></ul>
    </section>
    <section id="scenes-section">
      <h2>Scenes</h2>
      <ul id="scenes" class="scenes"></ul>
    </section>
    <section id="log-section">
      <h2>Log</h2>
      <div class="filters">
        <label>Instance <select id="log-instance"><option value="">all</option></select></label>
        <label>Level <select id="log-level">
          <option value="">all</option><option value="debug">debug</option><option value="info">info</option>
          <option value="notice">notice</option><option value="warning">warning</option>
          <option value="error">error</option><option value="critical">critical</option>
        </select></label>
      </div>
      <div id="log" class="log"></div>
    </section>
  </main>
  </body>
  </html>
  """
