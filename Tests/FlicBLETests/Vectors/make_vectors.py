"""Prints test vectors for FlicBLEProtocol, computed by pyflic-ble's own crypto (pyflic_ble.security).

Run with a Python >= 3.12 that has pyflic-ble installed:
    python Tests/FlicBLETests/Vectors/make_vectors.py > Tests/FlicBLETests/Vectors/pyflic-ble-vectors.json
Inputs are fixed byte patterns (no randomness), so the output is reproducible.
"""

import hashlib
import json
import random
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from pyflic_ble import security


def pattern(length: int, seed: int) -> bytes:
    return bytes((seed + 7 * i) & 0xFF for i in range(length))


def main() -> None:
    out: dict = {"source": "pyflic-ble " + __import__("importlib.metadata").metadata.version("pyflic-ble")}

    macs = []
    for key_seed, direction, counter, length in [
        (1, 0, 0, 1), (1, 1, 0, 1), (2, 1, 1, 5), (3, 0, 7, 15), (4, 1, 2**32 + 5, 16),
        (5, 0, 2**63 - 1, 17), (6, 1, 123456789, 31), (7, 0, 42, 32), (8, 1, 9, 33), (9, 0, 0, 128),
    ]:
        key = pattern(16, key_seed * 31)
        data = pattern(length, key_seed * 13 + length)
        tag = security.chaskey_with_dir_and_counter(security.chaskey_generate_subkeys(key), direction, counter, data)
        macs.append({"key": key.hex(), "direction": direction, "counter": counter, "data": data.hex(), "tag": tag.hex()})
    out["chaskeyMAC"] = macs

    blocks = []
    for seed in range(4):
        key = pattern(16, 100 + seed)
        data = pattern(16, 200 + seed)
        blocks.append({"key": key.hex(), "data": data.hex(),
                       "output": security.chaskey_16_bytes(security.chaskey_generate_subkeys(key), data).hex()})
    out["chaskeyBlock"] = blocks

    full = []
    for seed, variant, twist in [(1, 0, False), (2, 3, False), (3, 1, True)]:
        client_private = pattern(32, 40 + seed)
        button_private = pattern(32, 80 + seed)
        button_public = X25519PrivateKey.from_private_bytes(button_private).public_key().public_bytes_raw()
        client_public = X25519PrivateKey.from_private_bytes(client_private).public_key().public_bytes_raw()
        shared = security.x25519_key_exchange(client_private, button_public)
        assert shared == security.x25519_key_exchange(button_private, client_public)
        button_random = pattern(8, 120 + seed)
        client_random = pattern(8, 160 + seed)
        verifier, session_key, pairing_key, pairing_id, secret = security.derive_full_verify_keys(
            shared, variant, button_random, client_random, is_twist=twist)
        full.append({
            "clientPrivateKey": client_private.hex(), "buttonPrivateKey": button_private.hex(),
            "clientPublicKey": client_public.hex(), "buttonPublicKey": button_public.hex(),
            "sharedSecret": shared.hex(), "variant": variant, "flags": 0 if twist else 0x80,
            "buttonRandom": button_random.hex(), "clientRandom": client_random.hex(),
            "fullVerifySecret": secret.hex(), "verifier": verifier.hex(), "sessionKey": session_key.hex(),
            "pairingID": pairing_id, "pairingKey": pairing_key.hex(),
        })
    out["fullVerify"] = full

    # Quick verify exactly as pyflic_ble.handlers.flic2.Flic2ProtocolHandler.quick_verify derives it.
    quick = []
    for seed in range(3):
        pairing_key = pattern(16, 10 + seed)
        client_random = pattern(7, 50 + seed)
        button_random = pattern(8, 90 + seed)
        seed_bytes = bytearray(16)
        seed_bytes[0:7] = client_random
        seed_bytes[7] = 0x40
        seed_bytes[8:16] = button_random
        session_key = security.chaskey_16_bytes(security.chaskey_generate_subkeys(pairing_key), bytes(seed_bytes))
        quick.append({"pairingKey": pairing_key.hex(), "clientRandom": client_random.hex(), "flags": 0x40,
                      "buttonRandom": button_random.hex(), "sessionKey": session_key.hex()})
    out["quickVerify"] = quick

    # The factory signature check with its variant bits, through pyflic-ble's verifier.
    signatures = []
    for seed in range(3):
        factory = Ed25519PrivateKey.from_private_bytes(pattern(32, 200 + seed))
        factory_public = factory.public_key().public_bytes_raw()
        message = pattern(39, 30 + seed)
        genuine = factory.sign(message)
        sent = bytearray(genuine)
        sent[32] = (sent[32] & 0xFC) | ((genuine[32] + 1 + seed) & 0x03)
        variant = security.verify_ed25519_signature_with_variant(factory_public, message, bytes(sent))
        signatures.append({"factoryPublicKey": factory_public.hex(), "message": message.hex(),
                           "signature": bytes(sent).hex(), "variant": variant})
    out["factorySignature"] = signatures

    # Duo's bit-packed events: random payloads through pyflic-ble's parser, each with a fresh state.
    from pyflic_ble.protocol import DuoParserState, FlicDuoEventNotification
    rng = random.Random(2026)
    duo = []
    for case in range(60):
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        state = DuoParserState()
        note = FlicDuoEventNotification.from_bytes(payload, state)
        duo.append({
            "payload": payload.hex(),
            "parseError": note.has_parse_error and not note.events,
            "counts": note.per_button_event_count,
            "events": [{
                "button": e.button_index, "timestamp": e.timestamp_ms, "kind": int(e.event_type),
                "doubleClickWasHold": e.double_click_was_hold, "nextUpWillBeDoubleClick": e.next_up_will_be_double_click,
                "gesture": int(e.gesture) if e.gesture is not None else 0,
                "acceleration": [e.accel_x, e.accel_y, e.accel_z],
                "wasQueued": e.was_queued, "wasQueuedLast": e.was_queued_last,
            } for e in note.events],
        })
    out["duoEvents"] = duo

    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
