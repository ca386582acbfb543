"""A doorbell for patchbay's python plugin: publishes a click on `press` whenever a file named
`ring` appears in the `watch` directory (a script, a cron job or another program touches it).

Config (etc/plugins/python.toml):
    [instances.doorbell]
    plugin = "python"
    module = "/etc/patchbay/python/doorbell.py"
    watch = "/run/doorbell"

Ports: press (output, button event), rings (output, integer state: rings since the start).
"""
import os
import threading


def create(ctx, config):
    ctx.add_output("press", "button", "event", "a click when the doorbell rings")
    ctx.add_output("rings", "integer", "state", "rings since the instance started")
    ctx.watch = config.get("watch", "/run/doorbell")
    ctx.interval = float(config.get("interval", 0.2))
    ctx.rings = 0


def watch(ctx):
    ring = os.path.join(ctx.watch, "ring")
    while not ctx.stopping.wait(ctx.interval):
        try:
            os.remove(ring)
        except FileNotFoundError:
            continue
        except OSError as error:
            ctx.log("warning", f"cannot remove {ring}: {error}")
            continue
        ctx.rings += 1
        ctx.publish("press", {"action": "click"})
        ctx.publish("rings", ctx.rings)


def start(ctx):
    os.makedirs(ctx.watch, exist_ok=True)
    ctx.publish("rings", ctx.rings)
    ctx.stopping = threading.Event()
    ctx.thread = threading.Thread(target=watch, args=(ctx,), name="doorbell", daemon=True)
    ctx.thread.start()
    ctx.log("info", f"watching {ctx.watch} for 'ring'")


def stop(ctx):
    ctx.stopping.set()
    ctx.thread.join()
