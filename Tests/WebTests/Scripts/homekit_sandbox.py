#!/usr/bin/python3
"""The dashboard's HomeKit panel and sandbox view in a real browser (headless Chromium through
Selenium, Debian packages), against a hub with a homekit instance. WebHomeKitTests runs it twice:
`--phase unpaired` (the QR code and the setup code are shown; the sandbox view says what
`patchbay status --sandbox --json` says) and, after aiohomekit paired, `--phase paired` (the QR
code is gone, the controller is listed). Prints one line per step; exits non-zero at the first
step whose condition was not met within its (generous) deadline.

  homekit_sandbox.py --phase unpaired|paired --base URL --patchbay BIN --config TOML
                     --instance NAME --screenshots DIR [--setup-code CODE] [--pairing-id ID]
"""
import json
import subprocess

from selenium.common.exceptions import StaleElementReferenceException

from dashboard_clicks import arguments, css, in_browser, step, text_of, wait


def sandbox_status(args):
    """`patchbay status --sandbox --json`: what the CLI says, to hold the page against."""
    out = subprocess.run([args.patchbay, "status", "--sandbox", "--json", "--config", args.config],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    return json.loads(out)


def shot(driver, selector, path):
    """A picture of one element, scrolled into view (at the window's 1280 px width). The page
    redraws its cards as values arrive: an element replaced in between (stale) is found again."""
    for _ in range(50):
        try:
            element = css(driver, selector)[0]
            driver.execute_script("arguments[0].scrollIntoView({block: 'start'}); window.scrollBy(0, -70)", element)
            element.screenshot(path)
            print("  saved " + path)
            return
        except StaleElementReferenceException:
            continue
    raise SystemExit(f"FAIL: {selector} was replaced 50 times in a row while it was photographed")


# Reading the QR code back from its modules (no decoder package needed): versions 1 to 3 at error
# correction level M, one block each, numeric, alphanumeric and byte segments, as libqrencode makes
# a HomeKit payload (20 characters, all of QR's alphanumeric set: version 1). Function patterns, format bits, masks and the codeword order as ISO/IEC 18004 has them.
DATA_CODEWORDS_M = {1: 16, 2: 28, 3: 44}
ALIGNMENT = {1: None, 2: 18, 3: 22}
ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
MASKS = [
    lambda x, y: (x + y) % 2 == 0, lambda x, y: y % 2 == 0, lambda x, y: x % 3 == 0,
    lambda x, y: (x + y) % 3 == 0, lambda x, y: (x // 3 + y // 2) % 2 == 0,
    lambda x, y: x * y % 2 + x * y % 3 == 0, lambda x, y: (x * y % 2 + x * y % 3) % 2 == 0,
    lambda x, y: ((x + y) % 2 + x * y % 3) % 2 == 0,
]


def decode_qr(dark, size):
    """The text of the QR code whose dark modules (x, y) are `dark`, `size` modules a side."""
    version = (size - 17) // 4
    if version not in DATA_CODEWORDS_M:
        raise SystemExit(f"FAIL: a QR code of version {version}: this reader knows 1 to 3")
    def is_dark(x, y):
        return (x, y) in dark
    def is_function(x, y):
        if (x <= 8 and y <= 8) or (x >= size - 8 and y <= 8) or (x <= 8 and y >= size - 8):
            return True  # finders, separators, format bits
        if x == 6 or y == 6:
            return True  # timing
        centre = ALIGNMENT[version]
        return centre is not None and abs(x - centre) <= 2 and abs(y - centre) <= 2
    positions = [(8, i) for i in range(6)] + [(8, 7), (8, 8), (7, 8)] + [(14 - i, 8) for i in range(9, 15)]
    format_bits = sum(1 << i for i, (x, y) in enumerate(positions) if is_dark(x, y)) ^ 0x5412
    level, mask = format_bits >> 13, (format_bits >> 10) & 7
    if level != 0:
        raise SystemExit(f"FAIL: error correction level bits {level:02b}, M (00) expected")
    bits = []
    right = size - 1
    while right >= 1:
        if right == 6:
            right = 5
        for vert in range(size):
            for j in range(2):
                x = right - j
                y = size - 1 - vert if ((right + 1) & 2) == 0 else vert
                if not is_function(x, y):
                    bits.append(is_dark(x, y) != MASKS[mask](x, y))
        right -= 2
    codewords = [sum(bit << (7 - k) for k, bit in enumerate(bits[i:i + 8])) for i in range(0, len(bits) - 7, 8)]
    stream = "".join(f"{c:08b}" for c in codewords[:DATA_CODEWORDS_M[version]])
    at = 0
    def take(n):
        nonlocal at
        at += n
        return int(stream[at - n:at], 2)
    text = ""
    while at + 4 <= len(stream):
        mode = take(4)
        if mode == 0:  # terminator
            break
        if mode == 1:  # numeric: three digits in 10 bits
            count = take(10)
            while count > 0:
                n = min(count, 3)
                text += f"{take({3: 10, 2: 7, 1: 4}[n]):0{n}d}"
                count -= n
        elif mode == 2:  # alphanumeric: two characters in 11 bits
            count = take(9)
            while count > 0:
                if count >= 2:
                    pair = take(11)
                    text += ALPHANUMERIC[pair // 45] + ALPHANUMERIC[pair % 45]
                    count -= 2
                else:
                    text += ALPHANUMERIC[take(6)]
                    count -= 1
        elif mode == 4:
            count = take(8)
            text += bytes(take(8) for _ in range(count)).decode()
        else:
            raise SystemExit(f"FAIL: QR segment mode {mode:04b}: this reader knows numeric, alphanumeric, byte")
    return text


def setup_code_of(payload):
    """The setup code a `X-HM://` payload carries: the low 27 bits of its 9 base-36 characters."""
    number = int(payload[len("X-HM://"):len("X-HM://") + 9], 36)
    code = f"{number & ((1 << 27) - 1):08d}"
    return f"{code[:3]}-{code[3:5]}-{code[5:]}", number >> 31 & 0xFF, number >> 27 & 0xF


def unpaired(driver, args):
    card = f'.homekit[data-instance="{args.instance}"]'
    step("the HomeKit panel shows the setup QR code (an SVG of modules) and the instance's setup code")
    wait(driver, "the QR code in the panel", lambda: css(driver, card + " svg.qr .qr-modules rect"))
    modules = len(css(driver, card + " svg.qr .qr-modules rect"))
    size = driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.width, r.height]",
        card + " svg.qr")
    if modules < 100 or size[0] < 100 or size[0] != size[1]:
        raise SystemExit(f"FAIL: the QR code has {modules} dark modules and is drawn {size} px")
    shown = text_of(driver, card + " .setup-code")
    if shown != args.setup_code:
        raise SystemExit(f"FAIL: the panel shows setup code {shown!r}, the instance has {args.setup_code!r}")
    if css(driver, card + " li[data-pairing]"):
        raise SystemExit("FAIL: a pairing is listed before any controller paired")
    print(f"  {modules} dark modules, drawn {size[0]:.0f} px square; setup code {shown}")

    step("the QR code on the page reads back as the setup payload of the instance's setup code")
    view, rects = driver.execute_script(
        "const svg = document.querySelector(arguments[0]);"
        "return [svg.viewBox.baseVal.width, [...svg.querySelectorAll('.qr-modules rect')]"
        "  .map((r) => [Number(r.getAttribute('x')), Number(r.getAttribute('y'))])];", card + " svg.qr")
    quiet = 4
    payload = decode_qr({(x - quiet, y - quiet) for x, y in rects}, int(view) - 2 * quiet)
    code, category, flags = setup_code_of(payload)
    if not payload.startswith("X-HM://") or code != args.setup_code or category != 2 or flags != 2:
        raise SystemExit(f"FAIL: the QR code reads {payload!r}: code {code}, category {category}, flags {flags}")
    print(f"  read back: {payload} (setup code {code}, category 2 = bridge, flags 2 = IP)")
    shot(driver, "#homekit-section", args.screenshots + "/web-homekit.png")

    step("the sandbox view shows each instance as `patchbay status --sandbox --json` does")
    entries = sandbox_status(args)
    for entry in entries:
        row = f'#sandbox tr[data-instance="{entry["instance"]}"]'
        wait(driver, f"the sandbox row of {entry['instance']}", lambda: css(driver, row))
        sandbox = entry.get("sandbox")
        if not sandbox:
            continue
        policy = sandbox["policy"]
        write = text_of(driver, row + " .write")
        read = text_of(driver, row + " .read")
        for path in policy["write"]:
            if path not in write:
                raise SystemExit(f"FAIL: {entry['instance']}: write shows {write!r}, without {path}")
        for path in policy["read"]:
            if path not in read:
                raise SystemExit(f"FAIL: {entry['instance']}: read shows {read!r}, without {path}")
        confinement = text_of(driver, row + " .confinement")
        abi = sandbox.get("landlockABI")
        if abi and f"Landlock ABI {abi}" not in confinement:
            raise SystemExit(f"FAIL: {entry['instance']}: confinement {confinement!r}, Landlock ABI {abi} expected")
        if abi == 0 and "no Landlock" not in confinement:
            raise SystemExit(f"FAIL: {entry['instance']}: confinement {confinement!r} hides the missing Landlock")
        if abi and sandbox["networkConfined"] and not policy["networkAny"]:
            for field in ["connect", "bind"]:
                shown = text_of(driver, row + " ." + field)
                for port in policy[field]:
                    if str(port) not in shown:
                        raise SystemExit(f"FAIL: {entry['instance']}: {field} shows {shown!r}, without {port}")
        wait(driver, f"{entry['instance']}'s refused calls",
             lambda: text_of(driver, row + " .refused") == str(sandbox["refusedCalls"]))
        print(f"  {entry['instance']}: {confinement}; write {write}")
    shot(driver, "#sandbox-section", args.screenshots + "/web-sandbox.png")


def paired(driver, args):
    card = f'.homekit[data-instance="{args.instance}"]'
    step("after the pairing the QR code is gone and the controller is listed as admin")
    item = card + f' li[data-pairing="{args.pairing_id}"]'
    wait(driver, "the pairing listed", lambda: css(driver, item))
    wait(driver, "no QR code", lambda: not css(driver, card + " svg.qr") and not css(driver, card + " .setup-code"))
    listed = text_of(driver, item)
    if args.pairing_id not in listed or "admin" not in listed:
        raise SystemExit(f"FAIL: the pairing shows as {listed!r}")
    print("  listed: " + listed)
    shot(driver, "#homekit-section", args.screenshots + "/web-homekit-paired.png")


def main():
    args = arguments(["phase", "base", "patchbay", "config", "instance", "screenshots"], ["setup-code", "pairing-id"])
    in_browser(args, run, f"homekit_sandbox {args.phase}", ["--hide-scrollbars"])


def run(driver, args):
    driver.get(args.base + "/#operator")
    wait(driver, "hub up badge", lambda: text_of(driver, "#hub-state") == "hub up")
    {"unpaired": unpaired, "paired": paired}[args.phase](driver, args)


if __name__ == "__main__":
    main()
