#!/usr/bin/python3
"""The household view's scene buttons and down instances (headless Chromium through Selenium):
WebHouseholdTests starts a hub (WebHarness: the probe, the scene good_night) whose instance
`hall` (restart = "temporary") runs. A click on the scene's button activates it; then hall's
plugin process is killed, the hub leaves it down, and its tile must say so while the probe's
tile stays up.

  household_down.py --base URL --patchbay BIN --config TOML
"""
import json
import os
import signal
import subprocess
import sys
import urllib.request

from dashboard_clicks import arguments, click, css, headless_chromium, step, wait, wait_plain


def activations(args):
    with urllib.request.urlopen(args.base + "/api/scenes", timeout=30) as response:
        scenes = json.loads(response.read())["scenes"]
    return next((s["activations"] for s in scenes if s["name"] == "good_night"), None)


def status(args):
    out = subprocess.run([args.patchbay, "status", "--json", "--config", args.config],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    return {i["name"]: i for i in json.loads(out)["instances"]}


def tile(driver, group):
    return driver.execute_script(
        "const t = document.querySelector(`.tile[data-group='${arguments[0]}']`);"
        "return t ? {down: t.classList.contains('down'), state: t.querySelector('.tile-state').textContent} : null;", group)


def main():
    args = arguments(["base", "patchbay", "config"])
    driver = headless_chromium(args)
    try:
        step("both instances up: their tiles are not marked down")
        wait_plain("hall running", lambda: status(args)["hall"].get("phase") == "running" and status(args)["hall"].get("pid"))
        driver.get(args.base + "/")
        wait(driver, "hall's and probe's tiles up", lambda: tile(driver, "hall") == {"down": False, "state": ""}
             and (tile(driver, "probe") or {}).get("down") is False)
        step("the scene's button on the household view activates it")
        before = activations(args)
        click(driver, '#home-scenes .scene[data-scene="good_night"]')
        wait_plain("good_night activated once more", lambda: activations(args) == before + 1)
        print(f"  good_night activations: {before} -> {activations(args)}")
        step("hall's plugin process killed (restart = temporary): its tile shows it down, probe's stays up")
        pid = status(args)["hall"]["pid"]
        os.kill(pid, signal.SIGKILL)
        wait_plain("hall down in patchbay status", lambda: status(args)["hall"].get("phase") in ("failed", "stopped"))
        phase = status(args)["hall"]["phase"]
        wait(driver, f"hall's tile marked {phase}", lambda: tile(driver, "hall") == {"down": True, "state": phase})
        if tile(driver, "probe")["down"]:
            raise SystemExit("FAIL: probe's tile shows down too")
        print(f"  hall: {tile(driver, 'hall')}, probe: {tile(driver, 'probe')}")
    finally:
        driver.quit()
    print("household_down: every step passed", flush=True)


if __name__ == "__main__":
    sys.exit(main())
