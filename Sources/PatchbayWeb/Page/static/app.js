// The dashboard's script: plain JavaScript, no framework. It reads the JSON API, follows the live
// stream (server-sent events), draws the routes as SVG, and retries with back-off while the hub (or
// patchbay-web) cannot be reached.
"use strict";
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const state = { csrf: "", csrfHeader: "X-Patchbay-CSRF", ports: new Map(), toggles: new Map(), routes: [], hubUp: null,
  retryDelay: 1000, retryTimer: null, refreshTimer: null, portsKey: "", homeKitKey: "", sandboxKey: "" };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  return node;
}

class HubDown extends Error {}

async function api(path, options = {}) {
  const init = { credentials: "same-origin", headers: {} };
  if (options.body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.headers[state.csrfHeader] = state.csrf;
    init.body = JSON.stringify(options.body);
  } else if (options.post) {
    init.method = "POST";
    init.headers[state.csrfHeader] = state.csrf;
  }
  let response;
  try { response = await fetch(path, init); } catch (e) { throw new HubDown("patchbay-web is not reachable"); }
  if (response.status === 401) { location.href = "/login"; throw new Error("login needed"); }
  const data = await response.json().catch(() => ({}));
  if (response.status === 503) throw new HubDown(data.error || "the hub is not reachable");
  if (!response.ok) throw new Error(data.message || data.error || ("HTTP " + response.status));
  return data;
}

function setHub(up, why) {
  state.hubUp = up;
  const badge = $("hub-state");
  badge.textContent = up ? "hub up" : "hub down";
  badge.className = "badge " + (up ? "up" : "down");
  const banner = $("banner");
  if (up) { banner.hidden = true; banner.textContent = ""; }
  else { banner.hidden = false; banner.textContent = why; }
}

function scheduleRetry(error) {
  const seconds = Math.round(state.retryDelay / 100) / 10;
  setHub(false, error.message + ": retrying in " + seconds + " s");
  clearTimeout(state.retryTimer);
  state.retryTimer = setTimeout(refreshAll, state.retryDelay);
  state.retryDelay = Math.min(state.retryDelay * 2, 30000);
}

async function refreshAll() {
  try {
    const session = await api("/api/session");
    state.csrf = session.csrf; state.csrfHeader = session.csrfHeader;
    $("log-out").hidden = !session.loginRequired;
    const [status, ports, routes, scenes, homeKit, sandbox] = await Promise.all(
      [api("/api/status"), api("/api/ports"), api("/api/routes"), api("/api/scenes"), api("/api/homekit"), api("/api/sandbox")]);
    state.retryDelay = 1000;
    setHub(true);
    renderStatus(status);
    renderRoutes(routes, status.instances);
    renderPorts(ports.ports);
    renderScenes(scenes.scenes);
    renderHousehold(status.instances, ports.ports, scenes.scenes, routes.routes);
    renderHomeKit(homeKit.bridges);
    renderSandbox(sandbox.instances);
    await refreshLog();
    clearTimeout(state.refreshTimer);
    state.refreshTimer = setTimeout(refreshPeriodic, 5000);
  } catch (error) {
    if (error instanceof HubDown) scheduleRetry(error); else showError(error);
  }
}

async function refreshPeriodic() {
  try {
    const [status, scenes, homeKit, sandbox] = await Promise.all(
      [api("/api/status"), api("/api/scenes"), api("/api/homekit"), api("/api/sandbox")]);
    setHub(true);
    renderStatus(status);
    renderScenes(scenes.scenes);
    renderHomeKit(homeKit.bridges);
    renderSandbox(sandbox.instances);
    const ports = await api("/api/ports");
    const key = ports.ports.map((p) => p.address).join(",");
    if (key !== state.portsKey) { await refreshAll(); return; }
    // What the hub last gave each state input (the live stream carries outputs only).
    for (const port of ports.ports) if (port.direction === "input" && port.value != null) showValue(port.address, port.value, false);
    renderHousehold(status.instances, ports.ports, scenes.scenes, state.routes);
    await refreshLog();
    state.refreshTimer = setTimeout(refreshPeriodic, 5000);
  } catch (error) {
    if (error instanceof HubDown) scheduleRetry(error); else { showError(error); state.refreshTimer = setTimeout(refreshPeriodic, 5000); }
  }
}

function showError(error) {
  const banner = $("banner");
  banner.hidden = false;
  banner.textContent = error.message;
  setTimeout(() => { if (state.hubUp) banner.hidden = true; }, 6000);
}

function duration(seconds) {
  if (seconds === undefined || seconds === null) return "-";
  if (seconds < 60) return Math.floor(seconds) + " s";
  if (seconds < 3600) return Math.floor(seconds / 60) + " min";
  if (seconds < 86400) return (seconds / 3600).toFixed(1) + " h";
  return (seconds / 86400).toFixed(1) + " d";
}

function renderStatus(status) {
  $("hub-info").textContent = "v" + status.hub.version + " · pid " + status.hub.pid + " · up " + duration(status.hub.uptimeSeconds);
  const box = $("instances");
  box.replaceChildren(...status.instances.map((i) => el("div", { class: "card instance", "data-instance": i.name },
    el("h3", {}, el("span", { class: "name" }, i.name), el("span", { class: "state state-" + i.state }, i.state)),
    el("dl", {},
      el("dt", {}, "plugin"), el("dd", {}, i.plugin),
      el("dt", {}, "pid"), el("dd", {}, i.pid ?? "-"),
      el("dt", {}, "uptime"), el("dd", {}, duration(i.uptimeSeconds)),
      el("dt", {}, "restarts"), el("dd", {}, i.restarts),
      el("dt", {}, "last exit"), el("dd", {}, i.lastExit ?? "-"),
      el("dt", {}, "in / out"), el("dd", {}, i.messagesIn + " / " + i.messagesOut),
      el("dt", {}, "queue"), el("dd", {}, i.queueDepth),
      el("dt", {}, "drops"), el("dd", {}, i.drops),
      el("dt", {}, "waits"), el("dd", {}, i.backPressureWaits),
      el("dt", {}, "busy / host waits"), el("dd", {}, i.publishBusy + " / " + i.publishWaits),
      el("dt", {}, "refusals"), el("dd", {}, i.refusals),
      i.peer ? el("dt", {}, "peer") : null, i.peer ? el("dd", {}, i.peer) : null,
      i.failure ? el("dt", {}, "failure") : null, i.failure ? el("dd", { class: "error" }, i.failure) : null),
    el("button", { class: "restart", onclick: () => restart(i.name) }, "Restart"))));
  const select = $("log-instance");
  const chosen = select.value;
  select.replaceChildren(el("option", { value: "" }, "all"),
    ...["hub", ...status.instances.map((i) => i.name)].map((n) => el("option", { value: n }, n)));
  select.value = chosen;
}

async function restart(name) {
  try { await api("/api/restart", { body: { instance: name } }); setTimeout(refreshPeriodic, 500); }
  catch (error) { showError(error); }
}

async function send(address, value) {
  try { await api("/api/send", { body: { address, value: String(value) } }); }
  catch (error) { showError(error); }
}

function hexToHSB(hex) {
  const r = parseInt(hex.slice(1, 3), 16) / 255, g = parseInt(hex.slice(3, 5), 16) / 255, b = parseInt(hex.slice(5, 7), 16) / 255;
  const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
  let h = 0;
  if (d) h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  h = Math.round((h * 60 + 360) % 360);
  return { hue: h, saturation: Math.round(max ? (d / max) * 100 : 0), brightness: Math.round(max * 100) };
}

// The output that reports a bool input's real state when the plugin names it after the input
// (run -> running); else the input's own value, which the hub keeps following declared mirrors.
function reportOf(port, ports) {
  return ports.find((o) => o.instance === port.instance && o.direction === "output" && o.type === "bool"
    && o.kind === "state" && !o.mirrors && o.name !== port.name && o.name.startsWith(port.name));
}

function control(port, ports) {
  if (port.direction !== "input") return null;
  const a = port.address;
  switch (port.type) {
    case "bool": {
      const box = el("input", { type: "checkbox", "aria-label": "toggle " + a });
      const report = reportOf(port, ports);
      const shown = report ? report : port;
      box.checked = shown.value === "true";
      (state.toggles.get(shown.address) || state.toggles.set(shown.address, []).get(shown.address)).push(box);
      box.addEventListener("change", () => send(a, box.checked ? "true" : "false"));
      return el("label", { class: "control" }, box, report ? "on (as " + report.name + " says)" : "on");
    }
    case "integer": case "number": {
      const range = el("input", { type: "range", min: 0, max: 100, step: port.type === "integer" ? 1 : 0.5, "aria-label": "set " + a });
      if (port.value !== undefined && !isNaN(Number(port.value))) range.value = Number(port.value);
      range.addEventListener("change", () => send(a, range.value));
      return el("span", { class: "control" }, range);
    }
    case "color": {
      const pick = el("input", { type: "color", "aria-label": "color of " + a });
      const color = parseJSON(port.value || "");
      if (color && typeof color.hue === "number") pick.value = hex(hsvToRGB(color.hue, color.saturation / 100, 1));
      pick.addEventListener("change", () => send(a, JSON.stringify(hexToHSB(pick.value))));
      return el("span", { class: "control" }, pick);
    }
    case "light": {
      const on = el("input", { type: "checkbox", "aria-label": "light " + a });
      on.addEventListener("change", () => send(a, JSON.stringify({ on: on.checked })));
      const level = el("input", { type: "range", min: 0, max: 100, step: 1, "aria-label": "brightness of " + a });
      level.addEventListener("change", () => send(a, JSON.stringify({ on: true, brightness: Number(level.value) })));
      const pick = el("input", { type: "color", "aria-label": "color of " + a });
      // Start at the light's state (its mirroring output's, else the hub's last command), not black.
      const report = ports.find((o) => o.instance === port.instance && o.mirrors === port.name && o.kind === "state");
      const light = parseJSON((report && report.value) || port.value || "");
      if (light && typeof light === "object") {
        const look = lightLook(light);
        on.checked = look.on;
        level.value = Math.round(look.level);
        if (look.hue) pick.value = hex(hsvToRGB(look.hue.hue, look.hue.saturation / 100, 1));
      }
      pick.addEventListener("change", () => send(a, JSON.stringify({ on: true, color: hexToHSB(pick.value) })));
      return el("span", { class: "control" }, el("label", {}, on, "on"), level, pick);
    }
    case "trigger":
      return el("span", { class: "control" }, el("button", { onclick: () => send(a, "trigger") }, "Trigger"));
    case "button":
      return el("span", { class: "control" }, ...["click", "double_click", "hold"].map((action) =>
        el("button", { onclick: () => send(a, action) }, action.replace("_", " "))));
    default: {
      const input = el("input", { type: "text", size: 10, "aria-label": "text for " + a });
      input.addEventListener("keydown", (e) => { if (e.key === "Enter") send(a, input.value); });
      return el("span", { class: "control" }, input);
    }
  }
}

function renderPorts(ports) {
  state.ports.clear();
  state.toggles.clear();
  state.portsKey = ports.map((p) => p.address).join(",");
  const rows = ports.map((port) => {
    const value = el("td", { class: "value", "data-address": port.address }, port.value ?? "–");
    state.ports.set(port.address, value);
    return el("tr", {}, el("td", {}, port.address),
      el("td", { class: "type" }, port.type + " " + port.kind + (port.direction === "input" ? " in" : " out")),
      value, el("td", {}, control(port, ports)));
  });
  $("ports").replaceChildren(el("table", {},
    el("thead", {}, el("tr", {}, el("th", {}, "port"), el("th", { class: "type" }, "type"), el("th", {}, "value"), el("th", {}, "set"))),
    el("tbody", {}, ...rows)));
}

// Routes: instances as boxes in columns by their distance from a source; the routes between two
// instances as one arrow, labelled with their ports. Arrows to the next column run straight
// across; longer ones below the boxes, backward ones above, so none crosses a box. The picture
// is fitted to what was drawn (curves and labels included), so no arrow leaves it. A click on
// a box shows that instance's log lines.
function renderRoutes(data, instances) {
  state.routes = data.routes;
  const names = new Set(instances.map((i) => i.name));
  const instanceOf = (address) => address.split(".")[0];
  const portOf = (address) => address.slice(address.indexOf(".") + 1);
  for (const r of data.routes) { names.add(instanceOf(r.from)); r.targets.forEach((t) => names.add(instanceOf(t))); }
  // Columns by distance from the sources (breadth first, so a loop between two instances does
  // not push one of them a column further each pass).
  const next = new Map([...names].map((n) => [n, new Set()]));
  const incoming = new Map([...names].map((n) => [n, 0]));
  for (const r of data.routes) for (const t of r.targets) {
    const from = instanceOf(r.from), to = instanceOf(t);
    if (from !== to && !next.get(from).has(to)) { next.get(from).add(to); incoming.set(to, incoming.get(to) + 1); }
  }
  const depth = new Map();
  let queue = [...names].filter((n) => incoming.get(n) === 0).sort();
  for (const n of queue) depth.set(n, 0);
  for (;;) {
    while (queue.length) {
      const n = queue.shift();
      for (const to of [...next.get(n)].sort()) if (!depth.has(to)) { depth.set(to, depth.get(n) + 1); queue.push(to); }
    }
    const left = [...names].filter((n) => !depth.has(n)).sort();
    if (!left.length) break;
    depth.set(left[0], 0);
    queue = [left[0]];
  }
  const columns = [];
  for (const [name, d] of depth) (columns[d] = columns[d] || []).push(name);
  const W = 140, H = 36, GX = 200, GY = 70, pos = new Map();
  columns.forEach((col, x) => col.sort().forEach((name, y) => pos.set(name, { x: x * (W + GX), y: y * (H + GY) })));
  const bottom = Math.max(...[...pos.values()].map((p) => p.y + H));
  // One arrow per pair of instances, with every route (and target) between them.
  const pairs = new Map();
  for (const route of data.routes) for (const target of route.targets) {
    const key = instanceOf(route.from) + ">" + instanceOf(target);
    if (!pairs.has(key)) pairs.set(key, { from: instanceOf(route.from), to: instanceOf(target), sources: new Set(), lines: [], titles: [], drops: 0 });
    const pair = pairs.get(key);
    pair.sources.add(route.from);
    const line = portOf(route.from) + " → " + portOf(target);
    if (!pair.lines.includes(line)) pair.lines.push(line);
    pair.titles.push(route.from + " → " + target + (route.transforms.length ? " (" + route.transforms.join(", ") + ")" : "") + (route.drops ? ", " + route.drops + " dropped" : ""));
  }
  const graph = $("graph");
  graph.replaceChildren();
  const defs = svg("defs");
  // In the picture's units: a flashing (thicker) arrow keeps its head's size.
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 10, markerHeight: 10, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z" }));
  defs.append(marker); graph.append(defs);
  const edges = svg("g", { class: "edges" }), labels = svg("g", { class: "labels" });
  graph.append(edges, labels);
  let below = 0, above = 0, index = 0;
  for (const pair of pairs.values()) {
    const a = pos.get(pair.from), b = pos.get(pair.to);
    let d;
    if (a === b) {
      d = `M ${a.x + W - 20} ${a.y + H} C ${a.x + W} ${a.y + H + 45}, ${a.x + 20} ${a.y + H + 45}, ${a.x + 20} ${a.y + H}`;
    } else if (b.x === a.x + W + GX) {
      d = `M ${a.x + W} ${a.y + H / 2} C ${a.x + W + GX / 2} ${a.y + H / 2}, ${b.x - GX / 2} ${b.y + H / 2}, ${b.x} ${b.y + H / 2}`;
    } else if (b.x > a.x) {
      const low = bottom + 40 + 28 * below++;
      d = `M ${a.x + W / 2} ${a.y + H} C ${a.x + W / 2} ${low}, ${b.x + W / 2} ${low}, ${b.x + W / 2} ${b.y + H}`;
    } else if (b.x === a.x && Math.abs(b.y - a.y) === H + GY) {
      // Neighbours in a column: down on the left, up on the right, labels beside them.
      const dx = b.y > a.y ? -25 : 25;
      d = b.y > a.y ? `M ${a.x + W / 2 + dx} ${a.y + H} L ${b.x + W / 2 + dx} ${b.y}` : `M ${a.x + W / 2 + dx} ${a.y} L ${b.x + W / 2 + dx} ${b.y + H}`;
    } else if (b.x === a.x) {
      d = `M ${a.x + W} ${a.y + H / 2} C ${a.x + W + 60} ${a.y + H / 2}, ${b.x + W + 60} ${b.y + H / 2}, ${b.x + W} ${b.y + H / 2}`;
    } else {
      const high = -40 - 28 * above++;
      d = `M ${a.x + W / 2} ${a.y} C ${a.x + W / 2} ${high}, ${b.x + W / 2} ${high}, ${b.x + W / 2} ${b.y}`;
    }
    const id = "edge-" + index++;
    const path = svg("path", { d, class: "edge", "marker-end": "url(#arrow)", "data-from": [...pair.sources].join(" "), "data-to": pair.to, id });
    const title = svg("title");
    title.textContent = pair.titles.join("\n");
    path.append(title);
    edges.append(path);
    // The label: the ports, one line per route, on a patch of background at the arrow's middle.
    const middle = path.getTotalLength ? path.getPointAtLength(path.getTotalLength() / 2) : { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    const vertical = b.x === a.x && a !== b && Math.abs(b.y - a.y) === H + GY;
    const anchor = vertical ? (b.y > a.y ? "end" : "start") : "middle";
    const lx = middle.x + (vertical ? (b.y > a.y ? -6 : 6) : 0);
    const label = svg("text", { x: lx, y: middle.y - 6 - 13 * (pair.lines.length - 1) / 2 + (vertical ? 10 : 0), class: "edge-label", "text-anchor": anchor, "data-edge": id });
    pair.lines.forEach((line, n) => {
      const span = svg("tspan", { x: lx, dy: n ? 13 : 0 });
      span.textContent = line;
      label.append(span);
    });
    const label_title = svg("title");
    label_title.textContent = pair.titles.join("\n");
    label.append(label_title);
    labels.append(label);
  }
  for (const [name, p] of pos) {
    const g = svg("g", { class: "node", "data-instance": name, tabindex: 0, role: "button" });
    g.append(svg("rect", { x: p.x, y: p.y, width: W, height: H }));
    const text = svg("text", { x: p.x + 10, y: p.y + H / 2 + 5 });
    text.textContent = name;
    const title = svg("title");
    title.textContent = "show " + name + "'s log";
    g.append(text, title); graph.append(g);
    g.addEventListener("click", () => filterLog(name));
    g.addEventListener("keydown", (e) => { if (e.key === "Enter") filterLog(name); });
  }
  fitGraph();
  $("inactive-routes").replaceChildren(...(data.inactive || []).map((line) => el("li", {}, line)));
}

// The picture's size from what is drawn (a hidden view has no layout yet: then again when shown).
function fitGraph() {
  const graph = $("graph");
  let box;
  try { box = graph.getBBox(); } catch (e) { return; }
  if (!box || (box.width === 0 && box.height === 0)) return;
  const pad = 12, x = Math.floor(box.x - pad), y = Math.floor(box.y - pad);
  const width = Math.ceil(box.width + 2 * pad), height = Math.ceil(box.height + 2 * pad);
  graph.setAttribute("viewBox", `${x} ${y} ${width} ${height}`);
  graph.setAttribute("width", width); graph.setAttribute("height", height);
}

function filterLog(name) {
  const select = $("log-instance");
  if (![...select.options].some((o) => o.value === name)) select.append(el("option", { value: name }, name));
  select.value = name;
  refreshLog().catch(showError);
  $("log-section").scrollIntoView({ block: "start" });
}

// A value leaving a port flashes every arrow it flows along, with a dot (and the value) travelling on it.
function flow(address, value) {
  for (const path of document.querySelectorAll("#graph .edge")) {
    if (!(path.getAttribute("data-from") || "").split(" ").includes(address)) continue;
    path.classList.add("flow");
    setTimeout(() => path.classList.remove("flow"), 900);
    const dot = svg("g", { class: "pulse" });
    dot.append(svg("circle", { r: 5 }));
    if (value !== undefined) {
      const text = svg("text", { x: 8, y: -6, class: "pulse-value" });
      text.textContent = value.length > 24 ? value.slice(0, 23) + "…" : value;
      dot.append(text);
    }
    const motion = svg("animateMotion", { dur: "0.9s", repeatCount: "1", path: path.getAttribute("d"), fill: "freeze" });
    dot.append(motion);
    $("graph").append(dot);
    if (motion.beginElement) motion.beginElement();
    setTimeout(() => dot.remove(), 950);
  }
}

function renderScenes(scenes) {
  $("scenes").replaceChildren(...(scenes.length ? scenes.map((s) => el("li", { "data-scene": s.name },
    el("span", {}, el("strong", {}, s.name), " ", el("span", { class: "muted" }, s.ports + " ports · activated " + s.activations + "×")),
    el("button", { onclick: () => activate(s.name) }, "Activate"))) : [el("li", { class: "muted" }, "no scenes")]));
}

// HomeKit: per bridge, the setup QR code (SVG drawn by patchbay-web) and code while unpaired, and
// the paired controllers. Redrawn only when something changed.
function renderHomeKit(bridges) {
  const key = JSON.stringify(bridges);
  if (key === state.homeKitKey) return;
  state.homeKitKey = key;
  $("homekit-section").hidden = bridges.length === 0;
  $("homekit").replaceChildren(...bridges.map((b) => {
    const setup = b.setupPayload
      ? [qrImage(b.qrSVG),
         el("p", {}, "Setup code ", el("strong", { class: "setup-code" }, b.setupCode ?? "?")),
         el("p", { class: "muted" }, "In the Home app: Add Accessory, then scan the code (or enter the setup code).")]
      : [el("p", { class: "muted paired-note" }, "Paired: Home pairs again only after " , el("code", {}, "patchbay homekit reset " + b.instance), ".")];
    const pairings = b.pairings.length
      ? b.pairings.map((p) => el("li", { "data-pairing": p.id }, el("code", {}, p.id), " ", el("span", { class: "muted" }, p.admin ? "admin" : "regular")))
      : [el("li", { class: "muted" }, "no controller paired")];
    return el("div", { class: "card homekit", "data-instance": b.instance },
      el("h3", {}, el("span", { class: "name" }, b.instance), el("span", { class: "state state-" + b.state }, b.state)),
      el("p", { class: "muted discovery" }, b.discovery ?? "-"),
      ...setup,
      el("h4", {}, "Pairings"), el("ul", { class: "pairings" }, ...pairings));
  }));
}

// The server's SVG (generated from the payload, never from user text), parsed as SVG, not HTML.
function qrImage(text) {
  if (!text) return el("p", { class: "error" }, "no QR code");
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const node = document.importNode(doc.documentElement, true);
  return node.nodeName === "svg" ? node : el("p", { class: "error" }, "no QR code");
}

// The sandbox of every instance, as `patchbay status --sandbox` words it.
function renderSandbox(entries) {
  const key = JSON.stringify(entries);
  if (key === state.sandboxKey) return;
  state.sandboxKey = key;
  const list = (items) => items && items.length ? items.join(", ") : "none";
  const rows = entries.map((e) => {
    const s = e.sandbox;
    let confinement, warn = false, read = "-", write = "-", connect = "-", bind = "-", refused = "-";
    if (!s) confinement = "not started yet";
    else if (!s.policy.enabled) { confinement = "UNCONFINED: sandbox.enabled = false in its config"; warn = true; }
    else {
      if (s.landlockABI === undefined || s.landlockABI === null) confinement = "not reported yet";
      else if (s.landlockABI === 0) { confinement = "no Landlock on this kernel: files, ports and signals are not confined"; warn = true; }
      else {
        confinement = "Landlock ABI " + s.landlockABI + (s.signalsScoped ? ", signals scoped" : ", signals NOT scoped") + (s.seccomp ? ", seccomp" : ", NO seccomp");
        warn = !s.signalsScoped || !s.seccomp;
      }
      read = "system libraries and files; " + list(s.policy.read);
      write = list(s.policy.write);
      if (s.policy.networkAny) { connect = bind = "any (network = \"any\")"; }
      else if (s.landlockABI !== undefined && s.landlockABI !== null && !s.networkConfined) { connect = bind = "not confined (Landlock ABI below 4)"; }
      else { connect = list(s.policy.connect); bind = list(s.policy.bind); }
      refused = s.refusedCalls;
    }
    return el("tr", { "data-instance": e.instance },
      el("td", {}, el("strong", {}, e.instance), el("br"), el("span", { class: "muted" }, e.plugin)),
      el("td", { class: "confinement" + (warn ? " warn" : "") }, confinement),
      el("td", { class: "read" }, read), el("td", { class: "write" }, write),
      el("td", { class: "connect" }, connect), el("td", { class: "bind" }, bind),
      el("td", { class: "refused" }, refused));
  });
  $("sandbox").replaceChildren(el("table", {},
    el("thead", {}, el("tr", {}, ...["instance", "confinement", "read", "write", "connect", "bind", "refused calls"].map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows)));
}

async function activate(name) {
  try { await api("/api/scenes/" + encodeURIComponent(name) + "/activate", { post: true }); setTimeout(refreshPeriodic, 300); }
  catch (error) { showError(error); }
}

async function refreshLog() {
  const query = new URLSearchParams({ lines: "300", instance: $("log-instance").value, level: $("log-level").value });
  const data = await api("/api/log?" + query);
  const box = $("log");
  const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
  box.replaceChildren(...data.lines.map((l) => el("div", { class: l.level }, l.time + " " + l.level + " [" + l.label + "] " + l.message)));
  if (atBottom) box.scrollTop = box.scrollHeight;
}

// A port's value in the operator's table (flashing when it is news) and on the toggles it drives.
function showValue(address, value, live) {
  const cell = state.ports.get(address);
  if (cell && (live || cell.textContent !== value)) {
    cell.textContent = value;
    if (live) { cell.classList.remove("changed"); void cell.offsetWidth; cell.classList.add("changed"); }
  }
  for (const box of state.toggles.get(address) || []) if (value === "true" || value === "false") box.checked = value === "true";
}

function follow() {
  const events = new EventSource("/api/events");
  events.addEventListener("value", (event) => {
    const line = event.data, space = line.indexOf(" ");
    if (space < 0) return;
    const address = line.slice(0, space), value = line.slice(space + 1);
    showValue(address, value, true);
    // An input behind a route that passes values unchanged has the value now too.
    for (const route of state.routes) {
      if (route.from === address && route.transforms.length === 0) route.targets.forEach((t) => showValue(t, value, true));
    }
    householdValue(address, value);
    flow(address, value);
  });
  events.addEventListener("hub", (event) => {
    if (event.data === "up" && state.hubUp !== true) refreshAll();
    if (event.data === "down") setHub(false, "the hub is not reachable: patchbay-web keeps trying");
  });
  // A stream that ends is reopened by the browser (CONNECTING): normal, patchbay-web ends each
  // one after a while. Only a closed stream is a failure; then start a new one with back-off.
  events.addEventListener("error", () => {
    if (events.readyState !== EventSource.CLOSED) return;
    setHub(false, "lost the live stream from patchbay-web: reconnecting");
    setTimeout(follow, state.retryDelay);
  });
}

document.addEventListener("DOMContentLoaded", () => {
  $("log-instance").addEventListener("change", () => refreshLog().catch(showError));
  $("log-level").addEventListener("change", () => refreshLog().catch(showError));
  refreshAll();
  follow();
});

// Ends this browser's session (POST /logout with the CSRF header), then shows the login form.
async function logOut() {
  try {
    await fetch("/logout", { method: "POST", credentials: "same-origin", headers: { [state.csrfHeader]: state.csrf } });
  } finally {
    location.href = "/login";
  }
}
document.addEventListener("DOMContentLoaded", () => $("log-out").addEventListener("click", logOut));
