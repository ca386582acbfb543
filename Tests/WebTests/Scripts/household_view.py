#!/usr/bin/python3
"""The household view in a real browser (headless Chromium through Selenium, Debian's packages)
against the bedside example on the flicd, Homebridge and Hue simulators: the light tile shows
the Hue simulator's colour and a tap on it reaches the simulator, the switch tiles show the real
state, the routes graph keeps its arrows inside and labels them, and a phone in dark mode gets
no horizontal overflow. WebHouseholdTests starts everything and runs this; one line per step,
non-zero exit at the first step whose condition was not met within its (generous) deadline.

  household_view.py --base URL --patchbay BIN --config TOML --flicd-control SOCK
                    --hue-control SOCK --button ADDR --screenshots DIR
"""
import colorsys
import json
import re
import subprocess
import sys
import urllib.request

from dashboard_clicks import DEADLINE, arguments, click, control, css, in_browser, step, text_of, wait, wait_plain

LIGHT_TILE = '.tile[data-group="lights.bedroom"]'


def hue_light(args, light):
    """The simulator's state of one bulb: on, and hue/saturation in degrees/percent."""
    data = json.loads(control(args.hue_control, f"light {light}"))
    state = data.get("state", data)
    return {"on": state.get("on"), "hue": state.get("hue", 0) / 65535 * 360, "sat": state.get("sat", 0) / 254 * 100,
            "bri": state.get("bri", 0) / 254 * 100}


def rgb_of(text):
    """"rgb(r, g, b)" (a computed CSS colour) or "#rrggbb" as 0...1 floats."""
    if text.startswith("#"):
        return [int(text[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    numbers = re.findall(r"[\d.]+", text)
    return [float(n) / 255 for n in numbers[:3]]


def hue_distance(a, b):
    return min(abs(a - b), 360 - abs(a - b))


def api(args, path):
    with urllib.request.urlopen(args.base + path, timeout=30) as response:
        return json.loads(response.read())


def port_value(args, address):
    return next((p.get("value") for p in api(args, "/api/ports")["ports"] if p["address"] == address), None)


def send(args, address, value):
    subprocess.run([args.patchbay, "send", "--config", args.config, address, value],
                   check=True, capture_output=True, text=True, timeout=60)


def swatch(driver):
    """The light tile's bulb: its computed background colour, whether it shows on, the picker's value."""
    return driver.execute_script(
        "const t = document.querySelector(arguments[0]); if (!t) return null;"
        "const b = t.querySelector('.bulb');"
        "return {color: getComputedStyle(b).backgroundColor, on: b.dataset.on,"
        "  picker: t.querySelector('input[type=color]').value,"
        "  level: t.querySelector('input[aria-label^=\"brightness\"]').value};", LIGHT_TILE)


def colour_matches(driver, args, what):
    """The bulb's colour has the simulator's hue and saturation (the bulb's brightness dims it,
    which leaves both alone); the colour picker shows the same hue, not black."""
    light = hue_light(args, 1)
    shown = swatch(driver)
    if not shown or shown["on"] != "true":
        return None
    h, s, _ = colorsys.rgb_to_hsv(*rgb_of(shown["color"]))
    ph, ps, pv = colorsys.rgb_to_hsv(*rgb_of(shown["picker"]))
    ok = (hue_distance(h * 360, light["hue"]) <= 4 and abs(s * 100 - light["sat"]) <= 4
          and hue_distance(ph * 360, light["hue"]) <= 4 and pv > 0.9 and abs(float(shown["level"]) - light["bri"]) <= 2)
    if ok:
        print(f"  {what}: simulator hue {light['hue']:.1f}° sat {light['sat']:.1f} % bri {light['bri']:.0f} %;"
              f" bulb {shown['color']} (hue {h * 360:.1f}°, sat {s * 100:.1f} %), picker {shown['picker']},"
              f" brightness slider {shown['level']}")
    return ok


def switch_checked(driver, address):
    return driver.execute_script(
        "const b = document.querySelector(`input[aria-label='switch ${arguments[0]}']`);"
        "return b ? (b.indeterminate ? 'unknown' : String(b.checked)) : null;", address)


def graph_geometry(driver):
    """Every arrow and label of the routes graph against the picture's viewBox."""
    return driver.execute_script("""
      const g = document.getElementById('graph');
      const vb = g.viewBox.baseVal;
      const inside = (b, margin) => b.x - margin >= vb.x && b.y - margin >= vb.y
        && b.x + b.width + margin <= vb.x + vb.width && b.y + b.height + margin <= vb.y + vb.height;
      const edges = [...g.querySelectorAll('.edge')], labels = [...g.querySelectorAll('.edge-label')];
      return {
        viewBox: [vb.x, vb.y, vb.width, vb.height], width: g.getBoundingClientRect().width,
        edges: edges.length, labels: labels.map((l) => [...l.querySelectorAll('tspan')].map((t) => t.textContent)),
        // The arrow head (7 px) sits at the path's end: 7 px of room around each path.
        outside: edges.filter((e) => !inside(e.getBBox(), 7)).map((e) => e.getAttribute('d'))
          .concat(labels.filter((l) => !inside(l.getBBox(), 0)).map((l) => l.textContent)),
        // Boxes the arrows must not cross: an arrow's middle (where its label sits) inside a box.
        crossing: edges.filter((e) => [...g.querySelectorAll('.node rect')].some((r) => {
          const m = e.getPointAtLength(e.getTotalLength() / 2), b = r.getBBox();
          return m.x > b.x && m.x < b.x + b.width && m.y > b.y && m.y < b.y + b.height; })).map((e) => e.id),
      };""")


def no_overflow(driver):
    return driver.execute_script(
        "const w = window.innerWidth;"
        "const wide = [...document.querySelectorAll('body *')].filter((e) => e.offsetParent !== null"
        "  && e.getBoundingClientRect().right > w + 1 && !e.closest('.graph-wrap, #ports, #sandbox, .log'))"
        "  .map((e) => e.tagName + '.' + e.className);"
        "return {scroll: document.documentElement.scrollWidth, width: w, wide: wide.slice(0, 5)};")


def main():
    args = arguments(["base", "patchbay", "config", "flicd-control", "hue-control", "button", "screenshots"])
    in_browser(args, run, "household_view")


def run(driver, args):
    step("the page opens on the household view: the bedroom's tiles, by room")
    driver.get(args.base + "/")
    wait(driver, "the light tile", lambda: css(driver, LIGHT_TILE))
    if not driver.execute_script("return !document.getElementById('household-view').hidden"
                                 " && document.getElementById('operator-view').hidden"):
        raise SystemExit("FAIL: the household view is not the first view")
    rooms = driver.execute_script(
        "return [...document.querySelectorAll('.room[data-room]')].map((r) => [r.dataset.room,"
        " [...r.querySelectorAll('.tile')].map((t) => t.dataset.group)]);")
    print(f"  rooms: {rooms}")
    bedroom = dict(rooms).get("Bedroom", [])
    for group in ["lights.bedroom", "party", "bedside.button"]:
        if group not in bedroom:
            raise SystemExit(f"FAIL: no tile {group} in the Bedroom (room = \"Bedroom\" in the config): {rooms}")

    step("the light tile shows the Hue simulator's colour (30°), with the picker and slider at the light's values")
    for light in (1, 2, 3):
        control(args.hue_control, f"set {light} on=true bri=200 hue=5461 sat=200")
    wait(driver, "the bulb in the simulator's colour", lambda: colour_matches(driver, args, "30°"))
    step("... and follows the simulator to another colour (240°)")
    for light in (1, 2, 3):
        control(args.hue_control, f"set {light} on=true bri=120 hue=43690 sat=230")
    wait(driver, "the bulb in the simulator's new colour", lambda: colour_matches(driver, args, "240°"))
    step("... and shows a colour temperature as the white of it, the white slider at its mired")
    for light in (1, 2, 3):
        control(args.hue_control, f"set {light} on=true bri=254 ct=400")

    def warm_white():
        shown = swatch(driver) or {}
        white = driver.execute_script(
            "return document.querySelector(arguments[0] + ' input[aria-label^=\"color temperature\"]').value", LIGHT_TILE)
        r, g, b = rgb_of(shown.get("color", "rgb(0,0,0)"))
        return shown.get("on") == "true" and white == "400" and r > g > b > 0.1 and shown.get("level") == "100"
    wait(driver, "a warm white bulb with the white slider at 400 mired", warm_white)
    print(f"  400 mired: bulb {swatch(driver)['color']}")
    for light in (1, 2, 3):
        control(args.hue_control, f"set {light} on=true bri=120 hue=43690 sat=230")
    wait(driver, "the bulb blue again", lambda: colour_matches(driver, args, "240° again"))
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(args.screenshots + "/web-household.png")

    step("a tap on the light tile's bulb reaches the simulator: the bulbs go off, a second tap on again")
    click(driver, LIGHT_TILE + " .bulb")
    wait_plain("every bulb off on the Hue simulator", lambda: not any(hue_light(args, i)["on"] for i in (1, 2, 3)))
    wait(driver, "the bulb shown off", lambda: (swatch(driver) or {}).get("on") == "false")
    click(driver, LIGHT_TILE + " .bulb")
    wait_plain("every bulb on again", lambda: all(hue_light(args, i)["on"] for i in (1, 2, 3)))
    print("  off and on again on the simulator")

    step("the party switch shows the real state (party.running), also when party.run says otherwise")
    wait(driver, "party.run's switch off (the party is not running)", lambda: switch_checked(driver, "party.run") == "false")
    send(args, "party.run", "true")
    wait(driver, "party.run's switch on", lambda: switch_checked(driver, "party.run") == "true")
    wait(driver, "HomeKit's party switch on (routed from party.running)",
         lambda: switch_checked(driver, "homekit.party.on") == "true")
    # A toggle stops the party: party.run still holds true, the party does not run.
    send(args, "party.toggle", "trigger")
    wait_plain("party.running false in the API", lambda: port_value(args, "party.running") == "false")
    wait(driver, "party.run's switch off as party.running says", lambda: switch_checked(driver, "party.run") == "false")
    print(f"  party.run holds {port_value(args, 'party.run')!r}, party.running is 'false': the switch is off")
    click(driver, "input[aria-label='switch party.run']")
    wait_plain("party.running true after the click", lambda: port_value(args, "party.running") == "true")
    wait(driver, "the switch on after the click", lambda: switch_checked(driver, "party.run") == "true")
    click(driver, "input[aria-label='switch party.run']")
    wait_plain("party.running false after the second click", lambda: port_value(args, "party.running") == "false")

    step("the operator's view: state inputs show what the hub gave them, not '–'; party.run's toggle mirrors party.running")
    driver.get(args.base + "/#operator")
    wait(driver, "the ports table", lambda: css(driver, 'td.value[data-address="homekit.party.on"]'))
    for address in ["homekit.party.on", "party.run", "lights.bedroom.light"]:
        wait(driver, f"a value for {address}",
             lambda: (text_of(driver, f'td.value[data-address="{address}"]') or "–") != "–")
        shown = text_of(driver, f'td.value[data-address="{address}"]')
        print(f"  {address}: {shown}")
    toggle = driver.execute_script("return document.querySelector(\"input[aria-label='toggle party.run']\").checked")
    if toggle:
        raise SystemExit("FAIL: party.run's toggle is checked while party.running is false")
    picker = driver.execute_script("return document.querySelector(\"input[aria-label='color of lights.bedroom.light']\").value")
    if picker == "#000000":
        raise SystemExit("FAIL: the operator's colour picker is black for a lit, coloured light")

    step("the routes graph: every arrow and label inside the picture, labels name the ports")
    wait(driver, "the routes drawn and measured",
         lambda: graph_geometry(driver)["edges"] > 0 and graph_geometry(driver)["viewBox"][2] > 0)
    geometry = graph_geometry(driver)
    print(f"  {geometry['edges']} arrows, viewBox {geometry['viewBox']}; labels: {geometry['labels']}")
    if geometry["outside"]:
        raise SystemExit(f"FAIL: outside the picture: {geometry['outside']}")
    if geometry["crossing"]:
        raise SystemExit(f"FAIL: arrows through a box: {geometry['crossing']}")
    lines = [line for label in geometry["labels"] for line in label]
    expected = ["button.button → toggle", "button.button → stop", "running → party.on", "party.on.set → run",
                "bedroom.light → bedroom.light", "bedroom.state → bedroom.state", "button.button → ws_morning.on"]
    if len(geometry["labels"]) != geometry["edges"] or any(e not in lines for e in expected):
        raise SystemExit(f"FAIL: the arrows are not labelled with their ports: {geometry['labels']}")

    step("a press flashes along its route with its value")
    driver.execute_script(
        "window.pulses = []; new MutationObserver((changes) => changes.forEach((c) => c.addedNodes.forEach((n) => {"
        "  if (n.classList && n.classList.contains('pulse')) window.pulses.push(n.textContent); })))"
        ".observe(document.getElementById('graph'), {childList: true});")
    control(args.flicd_control, f"press {args.button} single")
    wait(driver, "a pulse carrying the click", lambda: any("click" in p for p in driver.execute_script("return window.pulses")))
    print(f"  pulses: {driver.execute_script('return window.pulses')}")
    driver.execute_script("document.getElementById('routes-section').scrollIntoView()")
    driver.save_screenshot(args.screenshots + "/web-routes.png")

    step("a click on an instance's box filters the log to that instance")
    click(driver, '#graph .node[data-instance="lights"]')
    wait(driver, "the log filtered to lights", lambda: driver.execute_script(
        "const lines = [...document.querySelectorAll('#log div')].map((d) => d.textContent);"
        "return document.getElementById('log-instance').value === 'lights' && lines.length > 0"
        " && lines.every((l) => l.includes('[lights'));"))

    step("a phone (390 px) in dark mode: both views fit the width, the page is dark")
    driver.get(args.base + "/")
    wait(driver, "the light tile again", lambda: css(driver, LIGHT_TILE))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    wait(driver, "the page laid out for a phone", lambda: driver.execute_script("return window.innerWidth") == 390)
    for view in ["#home", "#operator"]:
        driver.execute_script("location.hash = arguments[0]", view)
        wait(driver, f"{view} without horizontal overflow at 390 px",
             lambda: (lambda o: o["scroll"] <= o["width"] and not o["wide"])(no_overflow(driver)))
        print(f"  {view}: {no_overflow(driver)}")
    driver.execute_script("location.hash = '#home'; window.scrollTo(0, 0)")
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    if sum(rgb_of(background)) > 0.6:
        raise SystemExit(f"FAIL: the page is not dark in dark mode: {background}")
    text = driver.execute_script("return getComputedStyle(document.querySelector('.tile h3')).color")
    if sum(rgb_of(text)) < 2.0:
        raise SystemExit(f"FAIL: a tile's title is not light on the dark page: {text}")
    print(f"  background {background}, titles {text}")
    driver.save_screenshot(args.screenshots + "/web-household-phone.png")


if __name__ == "__main__":
    sys.exit(main())
