"""Runs pyflic-ble's real client (FlicClient, its DuoProtocolHandler) against patchbay's simulated
Flic Duo (FlicBLEButtonHost --model duo): pairing, quick verify, InitButtonEventsDuoRequest, and
the Duo's bit-packed events (opcode 32) of both buttons and swipes, decoded by pyflic-ble's own
parser. The link stand-in and the factory key patch are those of pyflic_against_simulator.py.

Usage: python pyflic_duo_against_simulator.py PATH/TO/FlicBLEButtonHost   (Python >= 3.12)
Exits 0 when every check passed.
"""

import asyncio
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pyflic_ble.handlers.flic2 as flic2_handler  # noqa: E402
from pyflic_ble import FlicClient  # noqa: E402
from pyflic_ble.const import DeviceType  # noqa: E402

from pyflic_against_simulator import ADDRESS, Checks, SimulatorProcess, install_stand_in  # noqa: E402


async def main(executable: str) -> int:
    logging.basicConfig(level=logging.WARNING)
    checks = Checks()
    sim = SimulatorProcess(executable, model="duo")
    install_stand_in(sim)
    device = object()
    flic2_handler.FLIC2_ED25519_PUBLIC_KEY = bytes.fromhex(sim.command("factory-key")[0].split()[1])

    print("1. pyflic-ble pairs with the simulated Duo (full verify):")
    client = FlicClient(ADDRESS, ble_device=device, device_type=DeviceType.DUO)
    await client.connect()
    pairing_id, pairing_key, serial, *_ = await client.full_verify_pairing()
    print(f"  paired: pairing_id={pairing_id:#010x} serial={serial}")
    checks.expect("simulator stored the pairing", "pairings=1" in sim.command("state")[0])
    await client.disconnect()

    print("\n2. start(): quick verify and InitButtonEventsDuoRequest, answered with opcode 30/31:")
    # No device type given: pyflic-ble tells a Duo by its serial number (first letter D).
    client = FlicClient(ADDRESS, ble_device=device, pairing_id=pairing_id, pairing_key=pairing_key,
                        serial_number=serial)
    events: list[tuple[str, dict]] = []
    client.on_button_event = lambda kind, data: events.append((kind, data))
    await client.start()
    checks.expect("connected with the Duo handler", client.state.connected and client.is_duo)

    print("\n3. Both buttons and swipes, as pyflic-ble's Duo parser reads them:")
    for gesture, expected in [
        ("click", [("down", 0), ("up", 0), ("click", 0)]),
        ("small-click", [("down", 1), ("up", 1), ("click", 1)]),
        ("small-double-click", [("down", 1), ("up", 1), ("down", 1), ("double_click", 1)]),
        ("hold", [("down", 0), ("hold", 0), ("up", 0)]),
        ("swipe-left", [("down", 0), ("up", 0), ("swipe_left", 0)]),
        ("small-swipe-up", [("down", 1), ("up", 1), ("swipe_up", 1)]),
    ]:
        events.clear()
        sim.command(f"press {gesture}")
        await asyncio.sleep(0)
        got = [(kind, data.get("button_index")) for kind, data in events]
        print(f"  {gesture}: pyflic-ble reported {got}")
        checks.expect(f"{gesture} seen as {expected}", got == expected, got)
    await client.stop()

    return checks.finish(sim)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
