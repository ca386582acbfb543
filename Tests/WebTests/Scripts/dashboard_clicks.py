#!/usr/bin/python3
"""The dashboard in a real browser, clicked as a person would: headless Chromium (Debian's
chromium and chromium-driver) driven by Selenium (Debian's python3-selenium), against a hub
running the bedside example on the flicd, Homebridge and Hue simulators. WebBrowserTests starts
all of them and runs this script; it prints one line per step and exits non-zero at the first
step whose condition was not met within its (generous) deadline.

  dashboard_clicks.py --base URL --patchbay BIN --config TOML --flicd-control SOCK
                      --hue-control SOCK --button ADDR --screenshots DIR
"""
import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

DEADLINE = 90  # seconds; shared machines are slow, and a wait ends as soon as its condition holds


def step(text):
    print("step: " + text, flush=True)


def arguments(required, optional=()):
    """The script's options: each of `required` and `optional` as --NAME, and the browser's
    --chromium and --chromedriver (Debian's by default)."""
    parser = argparse.ArgumentParser()
    for name in required:
        parser.add_argument("--" + name, required=True)
    for name in optional:
        parser.add_argument("--" + name)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    return parser.parse_args()


def in_browser(args, run, steps, flags=()):
    """`run(driver, args)` in headless Chromium, which ends after it; then `STEPS: every step passed`."""
    driver = headless_chromium(args, flags)
    try:
        run(driver, args)
    finally:
        driver.quit()
    print(f"{steps}: every step passed", flush=True)


def headless_chromium(args, flags=()):
    """Headless Chromium 1280x1000 on a fresh profile, driven through chromedriver; `flags` more."""
    options = webdriver.ChromeOptions()
    options.binary_location = args.chromium
    profile = tempfile.mkdtemp(prefix="patchbay-web-selenium-")
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", *flags,
                 "--disable-dev-shm-usage", "--window-size=1280,1000", "--user-data-dir=" + profile]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)


def control(path, line):
    """One line to a simulator's control socket; its one-line answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(60)
        sock.connect(path)
        sock.sendall((line + "\n").encode())
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    answer = answer.decode().strip()
    if answer.startswith("error"):
        raise RuntimeError(f"{path}: {line} -> {answer}")
    return answer


def hub_status(args):
    """`patchbay status --json`: what the CLI says, to hold the page against."""
    out = subprocess.run([args.patchbay, "status", "--json", "--config", args.config],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    return {i["name"]: i for i in json.loads(out)["instances"]}


def accepted_group_commands(args):
    """How many group commands the Hue simulator accepted (its `stats` line)."""
    stats = dict(pair.split("=") for pair in control(args.hue_control, "stats").split())
    return int(stats["accepted-group"])


def wait(driver, what, condition, seconds=DEADLINE):
    """Until `condition()` is true. An element it read may have been replaced by the page's
    re-rendering in between (stale): then it is simply asked again at the next poll."""
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.2,
                             ignored_exceptions=[StaleElementReferenceException]).until(lambda d: condition())
    except TimeoutException:
        raise SystemExit(f"FAIL: not within {seconds} s: {what}")


def wait_plain(what, condition, seconds=DEADLINE):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.2)
    raise SystemExit(f"FAIL: not within {seconds} s: {what}")


def css(driver, selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def attributes(driver, selector, name):
    """The attribute `name` of every element `selector` finds, read inside the page in one go:
    the page re-renders its cards and tables as values arrive, so elements found by one call may
    be gone (stale) by the next."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.getAttribute(arguments[1]))",
        selector, name)


def classes_of(driver, selector):
    """The class attribute of the first element `selector` finds ("" when there is none)."""
    return next(iter(attributes(driver, selector, "class")), None) or ""


def text_of(driver, selector):
    """The element's text now. The page re-renders its tables as values arrive, so an element
    found a moment ago may be gone (stale) when its text is read: then it is looked up again."""
    for _ in range(50):
        found = css(driver, selector)
        if not found:
            return None
        try:
            return found[0].text
        except StaleElementReferenceException:
            continue
    raise SystemExit(f"FAIL: {selector} was replaced 50 times in a row while its text was read")


def attack(driver, args):
    """Another site's page (here a file: URL, origin "null") posting a form to /api/send: its
    text/plain body is valid JSON that would start the party. The browser sends it; patchbay-web
    must refuse it for want of the X-Patchbay-CSRF header, which no other site can set."""
    page = tempfile.NamedTemporaryFile("w", suffix=".html", prefix="patchbay-cross-site-", delete=False)
    page.write(f"""<!doctype html><form method="post" action="{args.base}/api/send" enctype="text/plain">
<input name='{{"address":"party.run","value":true,"padding":"' value='"}}'></form>
<script>document.forms[0].submit()</script>""")
    page.close()
    driver.get("file://" + page.name)
    wait(driver, "patchbay-web's refusal of the cross-site POST",
         lambda: driver.current_url.startswith(args.base) and "X-Patchbay-CSRF" in driver.page_source)
    print("  refused: " + driver.find_element(By.TAG_NAME, "body").text.strip())


def click(driver, selector):
    """A click as a person makes it: on the element, scrolled to the middle of the screen (not
    under the sticky header). The page redraws the instance cards every few seconds, so a found
    element may be replaced before the click lands: then find it again."""
    def clicked():
        try:
            element = css(driver, selector)[0]
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()
            return True
        except (IndexError, StaleElementReferenceException):
            return False
    wait(driver, "a click on " + selector, clicked)


def card_field(driver, instance, field):
    """The value (dd) after the label (dt) `field` on an instance's card."""
    return driver.execute_script(
        "const dt = [...document.querySelectorAll(`.instance[data-instance='${arguments[0]}'] dt`)]"
        "  .find((d) => d.textContent === arguments[1]);"
        "return dt ? dt.nextElementSibling.textContent : null;", instance, field)


def main():
    args = arguments(["base", "patchbay", "config", "flicd-control", "hue-control", "button", "screenshots"])
    in_browser(args, run, "dashboard_clicks")


def run(driver, args):
    status = hub_status(args)
    step("the page lists every instance of the bedside example, running: " + ", ".join(sorted(status)))
    driver.get(args.base + "/#operator")
    wait(driver, "hub up badge", lambda: text_of(driver, "#hub-state") == "hub up")
    for name in status:
        wait(driver, f"instance {name} running on the page",
             lambda: css(driver, f'.instance[data-instance="{name}"] .state-running'))
    shown = set(attributes(driver, "#instances .instance", "data-instance"))
    if shown != set(status):
        raise SystemExit(f"FAIL: the page shows {sorted(shown)}, the hub has {sorted(status)}")

    step("a cross-site form POST (from another origin, without the CSRF header) is refused and starts nothing")
    before = accepted_group_commands(args)
    attack(driver, args)
    driver.get(args.base + "/#operator")
    wait(driver, "the page again", lambda: css(driver, 'td.value[data-address="party.running"]'))
    if text_of(driver, 'td.value[data-address="party.running"]') == "true" or accepted_group_commands(args) != before:
        raise SystemExit("FAIL: the cross-site POST started the party")

    step("clicking the party toggle (party.run) starts party mode: the Hue simulator receives group commands")
    click(driver, 'input[aria-label="toggle party.run"]')
    wait(driver, "party.running true on the page",
         lambda: text_of(driver, 'td.value[data-address="party.running"]') == "true")
    wait_plain("two group commands more on the Hue simulator (party colors)",
               lambda: accepted_group_commands(args) >= before + 2)
    print(f"  the Hue simulator accepted {accepted_group_commands(args) - before} group commands since the click")

    step("a press on the flicd simulator shows up live on the page")
    cell = 'td.value[data-address="bedside.button.button"]'
    shown_before = text_of(driver, cell)
    if "changed" in classes_of(driver, cell):
        raise SystemExit("FAIL: the bedside.button.button cell was marked changed before the press")
    control(args.flicd_control, f"press {args.button} single")
    wait(driver, "the click in the bedside.button.button cell",
         lambda: "click" in (text_of(driver, cell) or "")
         and "changed" in classes_of(driver, cell))
    print(f"  bedside.button.button: {shown_before!r} -> {text_of(driver, cell)!r}")

    step("screenshots, desktop and phone width")
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(args.screenshots + "/web-desktop.png")
    # A phone: 390 CSS pixels wide at 2 device pixels each, touch, and in dark mode (prefers-color-scheme).
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    wait(driver, "the page laid out for a phone", lambda: driver.execute_script("return window.innerWidth") == 390)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(args.screenshots + "/web-phone.png")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

    step("restarting an instance from the page changes its pid")
    old = hub_status(args)["lights"].get("pid")
    click(driver, '.instance[data-instance="lights"] button.restart')
    def restarted():
        now = hub_status(args)["lights"]
        return now if now.get("pid") not in (None, old) and now.get("phase") == "running" else None
    new = wait_plain(f"a new pid for lights (was {old}) in patchbay status", restarted)["pid"]
    wait(driver, f"pid {new} on the page's lights card", lambda: card_field(driver, "lights", "pid") == str(new))
    print(f"  lights: pid {old} -> {new}")


if __name__ == "__main__":
    sys.exit(main())
