// The household view (the page's first view): one tile per device-like group of ports, by room.
// A group is an instance's ports that share a name prefix ("bedroom.light", "bedroom.state"); what
// a tile shows follows from the ports' types: a light input makes a bulb, a bool state input a
// switch, a button output its last press, a number output a sensor with its 24 h sparkline.
// app.js calls renderHousehold() with the API's answers and householdValue() with live values.
"use strict";
const home = {
  key: "", values: new Map(), watchers: new Map(), routes: [], historyMissing: false,
  presses: new Map(), instances: new Map(), sparklines: new Map(), graph: null,
};

// The group of a port: its name without the last part, climbing while that prefix is itself a
// port ("party.on.set" belongs with "party.on" to "party"); "" for the instance itself.
function groupOf(name, names) {
  const parts = name.split(".");
  for (let i = parts.length - 1; i > 0; i--) {
    const prefix = parts.slice(0, i).join(".");
    if (!names.has(prefix)) return prefix;
  }
  return "";
}

const STATUS_PORTS = new Set(["connected", "peer", "reachable", "unreachable"]);

// Tiles for every instance, in rooms; each tile lists its facets (bulb, switch, press, sensor, actions).
function householdTiles(instances, ports) {
  const byInstance = new Map(instances.map((i) => [i.name, { instance: i, ports: [] }]));
  for (const port of ports) byInstance.get(port.instance)?.ports.push(port);
  const tiles = [];
  for (const { instance, ports } of byInstance.values()) {
    const names = new Set(ports.map((p) => p.name));
    const groups = new Map();
    for (const port of ports) {
      const group = groupOf(port.name, names);
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group).push({ ...port, local: group ? port.name.slice(group.length + 1) : port.name });
    }
    for (const [group, members] of groups) {
      const tile = tileOf(instance, group, members);
      if (tile) tiles.push(tile);
    }
  }
  return tiles;
}

function tileOf(instance, group, members) {
  const used = new Set();
  const facets = [];
  const outputs = members.filter((p) => p.direction === "output");
  const mirrorOf = (input) => outputs.find((o) => o.mirrors === input.name);
  // A light input is a device unless it takes another light's state (party-lights' `G.state`).
  const light = members.find((p) => p.direction === "input" && p.type === "light"
    && (p.local === "light" || mirrorOf(p) || !/(^|[._])state$/.test(p.local)));
  if (light) {
    const mirror = mirrorOf(light);
    used.add(light.address);
    if (mirror) used.add(mirror.address);
    // A mirror that is a state reports the device (Hue's bridge state); an event one only the
    // other side's writes: then the hub's last command (which follows them) is the state.
    const reported = mirror && mirror.kind === "state" ? mirror : null;
    const reachable = outputs.find((o) => o.local === "reachable" && o.type === "bool");
    // With a report, only the report: the hub's copy of the input merges commands, so it may hold
    // a colour next to the colour temperature the light has switched to.
    facets.push({ kind: "light", input: light, sources: reported ? [reported] : [light, mirror].filter(Boolean), reachable });
  }
  for (const input of members.filter((p) => p.direction === "input" && p.type === "bool" && p.kind === "state")) {
    if (used.has(input.address)) continue;
    used.add(input.address);
    // The real state: an output that reports this input (declared, or named after it: run ->
    // running), else what the hub last gave the input.
    const declared = mirrorOf(input);
    const named = outputs.find((o) => o.type === "bool" && o.kind === "state" && !o.mirrors && o.local !== input.local
      && o.local.startsWith(input.local) && !used.has(o.address));
    if (declared) used.add(declared.address);
    if (named) used.add(named.address);
    facets.push({ kind: "switch", input, sources: named ? [named] : [input, declared].filter(Boolean) });
  }
  for (const output of outputs.filter((o) => o.type === "button")) {
    used.add(output.address);
    facets.push({ kind: "press", output });
  }
  for (const output of outputs.filter((o) => !used.has(o.address))) {
    if (STATUS_PORTS.has(output.local)) continue;
    if (output.kind !== "state" || !["number", "integer", "bool"].includes(output.type)) continue;
    used.add(output.address);
    facets.push({ kind: "sensor", output });
  }
  const triggers = members.filter((p) => p.direction === "input" && p.type === "trigger");
  if (!facets.length) return null;
  if (triggers.length) facets.push({ kind: "actions", triggers });
  const connected = outputs.find((o) => o.local === "connected" && o.type === "bool");
  return {
    id: instance.name + (group ? "." + group : ""), instance: instance.name, room: instance.room || "",
    name: group ? group.split(".").pop().replace(/_/g, " ") : instance.name, facets, connected,
  };
}

function watch(address, fn) {
  if (!home.watchers.has(address)) home.watchers.set(address, []);
  home.watchers.get(address).push(fn);
  if (home.values.has(address)) fn(home.values.get(address), false);
}

// A value for a port (live, or from the API); `live` when it just happened.
function householdValue(address, value, live = true) {
  if (home.values.get(address) === value && !live) return;
  home.values.set(address, value);
  for (const fn of home.watchers.get(address) || []) fn(value, live);
  // An input fed by a route that passes values unchanged now holds the same value.
  if (live) for (const route of home.routes) {
    if (route.from === address && route.transforms.length === 0) route.targets.forEach((t) => householdValue(t, value, true));
  }
}

function parseJSON(text) { try { return JSON.parse(text); } catch (e) { return undefined; } }

// HSV (hue in degrees, saturation and value in 0...1) to "rgb(r, g, b)".
function hsvToRGB(h, s, v) {
  const f = (n) => { const k = (n + h / 60) % 6; return v - v * s * Math.max(0, Math.min(k, 4 - k, 1)); };
  return [f(5), f(3), f(1)].map((c) => Math.round(c * 255));
}
// Mired to an approximate RGB white (Tanner Helland's fit of the blackbody colours).
function miredToRGB(mired) {
  const t = 1e6 / mired / 100;
  const r = t <= 66 ? 255 : 329.7 * Math.pow(t - 60, -0.1332);
  const g = t <= 66 ? 99.47 * Math.log(t) - 161.12 : 288.12 * Math.pow(t - 60, -0.0755);
  const b = t >= 66 ? 255 : t <= 19 ? 0 : 138.52 * Math.log(t - 10) - 305.04;
  return [r, g, b].map((c) => Math.round(Math.max(0, Math.min(255, c))));
}
const hex = (rgb) => "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join("");

// How a light looks: its colour (hue and saturation kept; brightness dims it, never to black).
function lightLook(state) {
  const on = state && state.on !== false;
  const level = state && typeof state.brightness === "number" ? state.brightness : 100;
  const dim = 0.35 + 0.65 * Math.max(0, Math.min(level, 100)) / 100;
  let rgb, hue = null;
  if (state && state.color) {
    hue = state.color;
    rgb = hsvToRGB(((state.color.hue % 360) + 360) % 360, Math.max(0, Math.min(state.color.saturation, 100)) / 100, dim);
  } else {
    const white = miredToRGB(state && state.color_temperature ? state.color_temperature : 370);
    rgb = white.map((c) => Math.round(c * dim));
  }
  return { on, level, rgb, hue, mired: state && state.color_temperature };
}

function renderHousehold(instances, ports, scenes, routes) {
  home.routes = routes || [];
  for (const i of instances) home.instances.set(i.name, i);
  for (const p of ports) if (p.value !== undefined && p.value !== null) householdValue(p.address, p.value, false);
  const tiles = householdTiles(instances, ports);
  const key = JSON.stringify([tiles.map((t) => [t.id, t.room, t.facets.length]), scenes.map((s) => s.name)]);
  if (key !== home.key) {
    home.key = key;
    home.watchers.clear();
    drawTiles(tiles);
    $("home-scenes").replaceChildren(...scenes.map((s) =>
      el("button", { class: "scene", "data-scene": s.name, onclick: () => activate(s.name) }, s.name.replace(/_/g, " "))));
    $("home-scenes-section").hidden = scenes.length === 0;
  }
  // Down or up, every time: an instance that is down shows so on its tiles.
  for (const tile of document.querySelectorAll("#rooms .tile")) {
    const instance = home.instances.get(tile.dataset.instance);
    const down = !instance || instance.state !== "running";
    tile.classList.toggle("down", down);
    tile.querySelector(".tile-state").textContent = down ? (instance ? instance.state : "gone") : "";
  }
}

function drawTiles(tiles) {
  const rooms = new Map();
  for (const tile of tiles) {
    if (!rooms.has(tile.room)) rooms.set(tile.room, []);
    rooms.get(tile.room).push(tile);
  }
  const order = [...rooms.keys()].sort((a, b) => (a === "") - (b === "") || a.localeCompare(b));
  $("rooms").replaceChildren(...order.map((room) => el("section", { class: "room", "data-room": room },
    el("h2", {}, room || (order.length > 1 ? "Elsewhere" : "Home")),
    el("div", { class: "tiles" }, ...rooms.get(room).map(drawTile)))));
  if (!tiles.length) $("rooms").replaceChildren(el("p", { class: "muted" }, "No devices yet: the operator view lists every port."));
}

function drawTile(tile) {
  const node = el("article", { class: "tile tile-" + tile.facets[0].kind, "data-group": tile.id, "data-instance": tile.instance },
    el("h3", {}, el("span", { class: "name" }, tile.name),
      el("span", { class: "tile-state" }),
      tile.name !== tile.instance ? el("span", { class: "muted instance-name" }, tile.instance) : null));
  for (const facet of tile.facets) node.append(drawFacet(facet));
  if (tile.connected) {
    const link = el("p", { class: "muted link-state" });
    watch(tile.connected.address, (v) => { link.textContent = v === "true" ? "" : "not connected"; });
    node.append(link);
  }
  return node;
}

function drawFacet(facet) {
  switch (facet.kind) {
    case "light": return lightFacet(facet);
    case "switch": return switchFacet(facet);
    case "press": return pressFacet(facet);
    case "sensor": return sensorFacet(facet);
    case "actions":
      return el("div", { class: "actions" }, ...facet.triggers.map((t) =>
        el("button", { onclick: () => send(t.address, "trigger"), "aria-label": "trigger " + t.address }, t.local.replace(/_/g, " "))));
  }
  return null;
}

function lightFacet(facet) {
  const a = facet.input.address;
  let current = {};
  const bulb = el("button", { class: "bulb", "aria-label": "light " + a, "aria-pressed": "false" });
  const level = el("input", { type: "range", min: 1, max: 100, step: 1, "aria-label": "brightness of " + a });
  const pick = el("input", { type: "color", "aria-label": "color of " + a });
  const warmth = el("input", { type: "range", min: 153, max: 500, step: 1, "aria-label": "color temperature of " + a });
  const caption = el("span", { class: "muted light-caption" });
  const reach = el("span", { class: "muted unreachable" });
  const show = (state) => {
    current = state;
    const look = lightLook(state);
    bulb.style.setProperty("--bulb", "rgb(" + look.rgb.join(", ") + ")");
    bulb.classList.toggle("off", !look.on);
    bulb.setAttribute("aria-pressed", String(look.on));
    bulb.dataset.on = String(look.on);
    // Sliders and pickers start where the light is (not at black, not at 50 %), unless in use.
    if (document.activeElement !== level) level.value = Math.round(look.level);
    if (document.activeElement !== pick && look.hue) pick.value = hex(hsvToRGB(look.hue.hue, look.hue.saturation / 100, 1));
    if (document.activeElement !== warmth && look.mired) warmth.value = Math.round(look.mired);
    caption.textContent = look.on ? Math.round(look.level) + " %" + (look.mired && !look.hue ? " · " + Math.round(1e6 / look.mired) + " K" : "") : "off";
  };
  show({});
  // Latest wins between the device's report and the commands the hub gave (merged: a command
  // may carry only some fields).
  for (const source of facet.sources) watch(source.address, (text) => {
    const state = parseJSON(text);
    if (state && typeof state === "object") show(source === facet.input ? { ...current, ...state } : state);
  });
  if (facet.reachable) watch(facet.reachable.address, (v) => { reach.textContent = v === "false" ? "unreachable" : ""; });
  const command = (fields) => { show({ ...current, ...fields }); send(a, JSON.stringify(fields)); };
  bulb.addEventListener("click", () => command({ on: !lightLook(current).on }));
  level.addEventListener("change", () => command({ on: true, brightness: Number(level.value) }));
  pick.addEventListener("change", () => {
    const c = hexToHSB(pick.value);
    command({ on: true, color: { hue: c.hue, saturation: c.saturation, brightness: 100 } });
  });
  warmth.addEventListener("change", () => command({ on: true, color_temperature: Number(warmth.value) }));
  return el("div", { class: "facet light" }, el("div", { class: "bulb-row" }, bulb, caption, reach),
    el("label", { class: "slider" }, "brightness", level),
    el("div", { class: "pickers" }, el("label", {}, "colour ", pick), el("label", { class: "slider" }, "white", warmth)));
}

function switchFacet(facet) {
  const a = facet.input.address;
  const box = el("input", { type: "checkbox", class: "switch", role: "switch", "aria-label": "switch " + a });
  const text = el("span", { class: "muted" }, "unknown");
  const show = (v) => {
    if (v !== "true" && v !== "false") return;
    box.checked = v === "true";
    box.indeterminate = false;
    text.textContent = v === "true" ? "on" : "off";
  };
  box.indeterminate = true;
  for (const source of facet.sources) watch(source.address, show);
  box.addEventListener("change", () => send(a, box.checked ? "true" : "false"));
  return el("label", { class: "facet switch-row" }, el("span", { class: "facet-name" }, facet.input.local.replace(/_/g, " ")), text, box);
}

function pressFacet(facet) {
  const what = el("strong", { class: "press" }, "no press yet");
  const when = el("span", { class: "muted when" });
  watch(facet.output.address, (text, live) => {
    const value = parseJSON(text);
    const action = typeof value === "string" ? value : value && value.action ? value.action : text;
    what.textContent = String(action).replace(/_/g, " ");
    if (live) home.presses.set(facet.output.address, Date.now());
    const at = home.presses.get(facet.output.address);
    when.textContent = at ? "at " + new Date(at).toLocaleTimeString() : "before this page opened";
  });
  return el("div", { class: "facet press-row" }, el("span", { class: "facet-name" }, "last press"), what, when);
}

// A unit from the port's name or description, when it says one.
function unitOf(port) {
  const text = (port.name + " " + port.description).toLowerCase();
  if (/°c|celsius|temperature/.test(text)) return " °C";
  if (/percent|battery|humidity|%/.test(text)) return " %";
  if (/lux|illuminance/.test(text)) return " lx";
  if (/watt|power/.test(text)) return " W";
  return "";
}

function sensorFacet(facet) {
  const port = facet.output, unit = unitOf(port);
  const value = el("strong", { class: "sensor-value" }, "–");
  // Hidden until there is history to draw (no recorder: no empty box).
  const spark = svg("svg", { class: "sparkline", viewBox: "0 0 100 24", preserveAspectRatio: "none", "data-port": port.address, display: "none" });
  const row = el("button", { class: "facet sensor-row", "aria-label": "history of " + port.address, onclick: () => openGraph(port, unit) },
    el("span", { class: "facet-name" }, port.local.replace(/[._]/g, " ")), value, spark);
  watch(port.address, (text, live) => {
    value.textContent = port.type === "bool" ? (text === "true" ? "yes" : "no") : text + unit;
    const number = port.type === "bool" ? (text === "true" ? 1 : 0) : Number(text);
    const line = home.sparklines.get(port.address);
    if (live && line && !isNaN(number)) { line.push({ t: Date.now() / 1000, value: number }); drawSparkline(spark, line); }
  });
  loadHistory(port.address, 86400).then((points) => {
    if (!points) return;
    home.sparklines.set(port.address, points);
    drawSparkline(spark, points);
  });
  return row;
}

// The recorder's points for a port since `seconds` ago; null when patchbay-web has no history
// (404: no recorder), then nobody asks again.
async function loadHistory(address, seconds) {
  if (home.historyMissing) return null;
  const since = Math.floor(Date.now() / 1000) - seconds;
  let response;
  try {
    response = await fetch("/api/history?" + new URLSearchParams({ port: address, since: String(since) }), { credentials: "same-origin" });
  } catch (e) { return null; }
  if (response.status === 404) { home.historyMissing = true; return null; }
  if (!response.ok) return null;
  const data = await response.json().catch(() => null);
  if (!data || !Array.isArray(data.points)) return null;
  return data.points.map((p) => ({ t: p.t, value: typeof p.value === "boolean" ? (p.value ? 1 : 0) : Number(p.value), min: p.min, max: p.max }))
    .filter((p) => !isNaN(p.value));
}

function drawSparkline(node, points) {
  node.replaceChildren();
  node.removeAttribute("display");
  node.dataset.values = points.map((p) => p.value).join(",");
  if (points.length < 1) return;
  const values = points.map((p) => p.value), t0 = points[0].t, t1 = points[points.length - 1].t;
  const low = Math.min(...values), high = Math.max(...values), span = high - low || 1;
  const x = (t) => (t1 > t0 ? ((t - t0) / (t1 - t0)) * 100 : 50);
  const y = (v) => 22 - ((v - low) / span) * 20;
  node.append(svg("polyline", { points: points.map((p) => x(p.t).toFixed(2) + "," + y(p.value).toFixed(2)).join(" "), class: "spark" }));
}

// The full graph of one sensor: the last hour, day or week.
async function openGraph(port, unit) {
  const dialog = $("graph-dialog");
  $("graph-title").textContent = port.address;
  dialog.hidden = false;
  const draw = async (seconds) => {
    for (const b of dialog.querySelectorAll("[data-span]")) b.classList.toggle("chosen", Number(b.dataset.span) === seconds);
    const box = $("history-graph");
    const points = await loadHistory(port.address, seconds);
    box.replaceChildren();
    if (!points || !points.length) {
      $("graph-note").textContent = points ? "no values in this time" : "no history: patchbay-web has no recorder to ask";
      return;
    }
    $("graph-note").textContent = points.length + " values";
    const W = 600, H = 220, L = 50, B = 24;
    const t1 = Date.now() / 1000, t0 = t1 - seconds;
    const lows = points.map((p) => p.min ?? p.value), highs = points.map((p) => p.max ?? p.value);
    const low = Math.min(...lows), high = Math.max(...highs), span = high - low || 1;
    const x = (t) => L + ((t - t0) / seconds) * (W - L - 8), y = (v) => H - B - ((v - low) / span) * (H - B - 10);
    box.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const band = points.filter((p) => p.min !== undefined && p.max !== undefined);
    if (band.length) box.append(svg("polygon", { class: "band",
      points: band.map((p) => x(p.t) + "," + y(p.max)).concat(band.slice().reverse().map((p) => x(p.t) + "," + y(p.min))).join(" ") }));
    box.append(svg("polyline", { class: "spark", points: points.map((p) => x(p.t).toFixed(1) + "," + y(p.value).toFixed(1)).join(" ") }));
    for (const [v, at] of [[high, y(high)], [low, y(low)]]) {
      const label = svg("text", { x: 4, y: at + 4, class: "axis" });
      label.textContent = (Math.round(v * 10) / 10) + unit;
      box.append(label);
    }
    const start = svg("text", { x: L, y: H - 6, class: "axis" });
    start.textContent = new Date(t0 * 1000).toLocaleString();
    box.append(start);
  };
  for (const b of dialog.querySelectorAll("[data-span]")) b.onclick = () => draw(Number(b.dataset.span));
  await draw(86400);
}

// The two views: the household's (first) and the operator's, by the address's #fragment.
function showView() {
  const operator = location.hash === "#operator";
  $("household-view").hidden = operator;
  $("operator-view").hidden = !operator;
  $("tab-home").classList.toggle("chosen", !operator);
  $("tab-operator").classList.toggle("chosen", operator);
  $("tab-home").setAttribute("aria-current", operator ? "false" : "page");
  $("tab-operator").setAttribute("aria-current", operator ? "page" : "false");
  // The routes graph is measured only when it is laid out.
  if (operator) fitGraph();
}
window.addEventListener("hashchange", showView);
document.addEventListener("DOMContentLoaded", () => {
  showView();
  $("graph-close").addEventListener("click", () => { $("graph-dialog").hidden = true; });
});
