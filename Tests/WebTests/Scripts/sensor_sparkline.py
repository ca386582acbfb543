#!/usr/bin/python3
"""A sensor tile's sparkline in a real browser (headless Chromium through Selenium): values sent
through a real hub (`patchbay send` to the example-swift probe, which mirrors them to an output)
reach the recorder, GET /api/history serves them, and the tile's sparkline has exactly those
values; a value sent while the page is open joins it live; a tap opens the full graph.
WebHouseholdTests runs it. Needs the history recorder (GET /api/history): without it, it fails
at the first step and says so.

  sensor_sparkline.py --base URL --patchbay BIN --config TOML
"""
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request

from dashboard_clicks import arguments, click, css, headless_chromium, step, wait, wait_plain

PORT = "probe.level.out"
SPARK = f'.sparkline[data-port="{PORT}"]'


def get(args, path):
    with urllib.request.urlopen(args.base + path, timeout=30) as response:
        return json.loads(response.read())


def send(args, address, value):
    subprocess.run([args.patchbay, "send", "--config", args.config, address, value],
                   check=True, capture_output=True, text=True, timeout=60)


def port_value(args, address):
    return next((p.get("value") for p in get(args, "/api/ports")["ports"] if p["address"] == address), None)


def history(args):
    try:
        data = get(args, f"/api/history?port={PORT}&since={int(time.time()) - 3600}")
    except urllib.error.HTTPError as error:
        if error.code == 404:
            raise SystemExit("FAIL: GET /api/history answers 404: no history recorder in this patchbay-web")
        raise
    return [p["value"] for p in data["points"]]


def sparkline(driver):
    return driver.execute_script(
        "const s = document.querySelector(arguments[0]); return s ? s.dataset.values || '' : null;", SPARK)


def main():
    args = arguments(["base", "patchbay", "config"])

    step("three values through the hub, each seen on the probe's output, then in the recorder's history")
    for value in ["3", "5", "8"]:
        send(args, "probe.level", value)
        wait_plain(f"{PORT} = {value}", lambda: port_value(args, PORT) == value)
    wait_plain("3, 5, 8 in /api/history", lambda: history(args)[-3:] == [3, 5, 8])
    print(f"  /api/history: {history(args)}")

    driver = headless_chromium(args)
    try:
        step("the sensor tile's sparkline has the values sent")
        driver.get(args.base + "/")
        wait(driver, "the sparkline with 3, 5, 8", lambda: (sparkline(driver) or "").endswith("3,5,8"))
        print(f"  sparkline values: {sparkline(driver)}")
        step("a value sent while the page is open joins the sparkline live")
        send(args, "probe.level", "13")
        wait(driver, "13 on the sparkline", lambda: (sparkline(driver) or "").endswith("3,5,8,13"))
        step("a tap on the sensor opens its graph")
        click(driver, f'button[aria-label="history of {PORT}"]')
        wait(driver, "the graph with its line", lambda: css(driver, "#graph-dialog:not([hidden]) #history-graph polyline"))
        note = driver.execute_script("return document.getElementById('graph-note').textContent")
        print(f"  graph: {note}")
    finally:
        driver.quit()
    print("sensor_sparkline: every step passed", flush=True)


if __name__ == "__main__":
    sys.exit(main())
