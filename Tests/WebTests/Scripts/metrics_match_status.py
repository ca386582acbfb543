#!/usr/bin/python3
"""/metrics read as Prometheus reads it: prometheus_client's text-format parser (Debian's
python3-prometheus-client) must accept the whole scrape, and every instance's up, restarts,
queue depth and drops must equal what `patchbay status --json` says, as must every route's values and drops.

  metrics_match_status.py --base URL --patchbay BIN --config TOML

The hub keeps running while this reads, so a scrape is taken between two status answers that
agree on the compared numbers (the script retries until they do, within a deadline). Prints the
compared samples; exits non-zero on the first difference.
"""
import argparse
import json
import subprocess
import sys
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

DEADLINE = 60


def status(args):
    out = subprocess.run([args.patchbay, "status", "--json", "--config", args.config],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    return json.loads(out)


def expected(answer):
    """(metric family, sorted labels) -> value, from one status answer."""
    numbers = {}
    for i in answer["instances"]:
        labels = (("instance", i["name"]), ("plugin", i["plugin"]))
        numbers[("patchbay_instance_up", labels)] = 1.0 if i["phase"] == "running" else 0.0
        numbers[("patchbay_instance_restarts", labels)] = float(i["restarts"])
        numbers[("patchbay_instance_queue_depth", labels)] = float(i["queueDepth"])
        numbers[("patchbay_instance_drops", labels)] = float(i["drops"])
    for r in answer["routes"]:
        numbers[("patchbay_route_drops", (("key", r["key"]), ("route", r["id"])))] = float(r["drops"])
        numbers[("patchbay_route_values", (("key", r["key"]), ("route", r["id"])))] = float(r["values"])
    return numbers


def scrape(args):
    with urllib.request.urlopen(args.base + "/metrics", timeout=30) as response:
        kind = response.headers.get("Content-Type", "")
        if not kind.startswith("text/plain; version=0.0.4"):
            raise SystemExit(f"FAIL: /metrics Content-Type is {kind!r}")
        text = response.read().decode()
    samples, types = {}, {}
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for sample in family.samples:
            # Keyed by family: a counter's sample is NAME_total, its family NAME.
            samples[(family.name, tuple(sorted(sample.labels.items())))] = sample.value
    return text, samples, types


def main():
    parser = argparse.ArgumentParser()
    for name in ["base", "patchbay", "config"]:
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    deadline = time.monotonic() + DEADLINE
    while True:
        first = expected(status(args))
        text, samples, types = scrape(args)
        second = expected(status(args))
        if first == second:
            break
        if time.monotonic() > deadline:
            raise SystemExit("FAIL: the hub's counters never held still between two status answers")
    # The families by the parser's names (a counter's family drops its _total suffix).
    for name, kind in [("patchbay_hub_up", "gauge"), ("patchbay_instance_up", "gauge"),
                       ("patchbay_instance_restarts", "counter"), ("patchbay_instance_queue_depth", "gauge"),
                       ("patchbay_instance_drops", "counter"), ("patchbay_route_drops", "counter"),
                       ("patchbay_route_values", "counter")]:
        if types.get(name) != kind:
            raise SystemExit(f"FAIL: {name} is {types.get(name)!r}, not {kind}:\n{text}")
    if samples.get(("patchbay_hub_up", ())) != 1.0:
        raise SystemExit(f"FAIL: patchbay_hub_up is not 1:\n{text}")
    for (family, labels), value in sorted(first.items()):
        got = samples.get((family, labels))
        shown = ",".join(f'{k}="{v}"' for k, v in labels)
        print(f"{family}{{{shown}}} metrics={got} status={value}")
        if got != value:
            raise SystemExit(f"FAIL: {family}{{{shown}}} is {got} in /metrics, {value} in patchbay status:\n{text}")
    print(f"metrics_match_status: {len(first)} samples match patchbay status", flush=True)


if __name__ == "__main__":
    sys.exit(main())
