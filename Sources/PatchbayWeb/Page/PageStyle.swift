/// The dashboard's style: light and dark (prefers-color-scheme), one column on a phone.
let pageStyle = """
  :root {
    --bg: #f6f7f9; --fg: #1b1f24; --card: #ffffff; --line: #d5d9e0; --muted: #5d6673;
    --accent: #1f6feb; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --flash: #f0883e;
  }
  @media (prefers-color-scheme: dark) {
    :root {
      --bg: #0d1117; --fg: #e6edf3; --card: #161b22; --line: #30363d; --muted: #8b949e;
      --accent: #58a6ff; --ok: #3fb950; --bad: #f85149; --warn: #d29922; --flash: #f0883e;
    }
  }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
  header { display: flex; flex-wrap: wrap; align-items: center; gap: .6rem; padding: .6rem 1rem;
    border-bottom: 1px solid var(--line); background: var(--card); position: sticky; top: 0; z-index: 2; }
  h1 { font-size: 1.2rem; margin: 0; }
  h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
  main { display: grid; gap: 1rem; padding: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 30rem), 1fr)); }
  section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .8rem; min-width: 0; }
  #routes-section, #log-section { grid-column: 1 / -1; }
  .muted { color: var(--muted); font-size: .9em; }
  .badge { border-radius: 999px; padding: .1rem .6rem; font-size: .85rem; border: 1px solid var(--line); }
  .badge.up { color: var(--ok); border-color: var(--ok); }
  .badge.down { color: var(--bad); border-color: var(--bad); }
  .banner { background: var(--bad); color: #fff; padding: .5rem 1rem; }
  .cards { display: grid; gap: .6rem; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); }
  .card { border: 1px solid var(--line); border-radius: 6px; padding: .6rem; }
  .card h3 { margin: 0 0 .3rem; font-size: 1rem; display: flex; justify-content: space-between; gap: .5rem; }
  .state-running { color: var(--ok); }
  .state-failed, .state-stopped { color: var(--bad); }
  .state-starting, .state-restarting, .state-stopping { color: var(--warn); }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 0 .6rem; margin: .3rem 0; font-size: .88rem; }
  dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; }
  button { font: inherit; padding: .25rem .7rem; border-radius: 6px; border: 1px solid var(--line);
    background: var(--bg); color: var(--fg); cursor: pointer; }
  button:hover { border-color: var(--accent); }
  input, select { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 4px; }
  table { width: 100%; border-collapse: collapse; font-size: .9rem; }
  th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
  td.value { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
  td.value.changed { animation: changed 1s ease-out; }
  @keyframes changed { from { background: var(--flash); } to { background: transparent; } }
  .control { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; }
  .control input[type=range] { width: 8rem; }
  .graph-wrap, #ports { overflow-x: auto; }
  #graph { display: block; min-width: 100%; }
  #graph .node rect { fill: var(--bg); stroke: var(--accent); rx: 6; }
  #graph .node text { fill: var(--fg); font-size: 13px; }
  #graph .edge { fill: none; stroke: var(--muted); stroke-width: 1.6; }
  #graph .edge.flow { stroke: var(--flash); stroke-width: 3; }
  #graph .edge-label { fill: var(--muted); font-size: 11px; }
  #graph .pulse { fill: var(--flash); }
  #graph marker path { fill: var(--muted); }
  .scenes { list-style: none; padding: 0; margin: 0; display: grid; gap: .4rem; }
  .scenes li { display: flex; justify-content: space-between; align-items: center; gap: .5rem; }
  .filters { display: flex; gap: 1rem; flex-wrap: wrap; margin-bottom: .5rem; }
  .log { font-family: ui-monospace, monospace; font-size: .8rem; max-height: 24rem; overflow: auto;
    white-space: pre-wrap; overflow-wrap: anywhere; }
  .log .warning { color: var(--warn); } .log .error, .log .critical { color: var(--bad); }
  .log .debug, .log .trace { color: var(--muted); }
  .login { max-width: 22rem; margin: 4rem auto; display: grid; gap: 1rem; }
  .login form { display: grid; gap: .6rem; } .login label { display: grid; gap: .3rem; }
  .error { color: var(--bad); }
  @media (max-width: 600px) {
    main { padding: .5rem; gap: .5rem; }
    th.type, td.type { display: none; }
  }
  """
