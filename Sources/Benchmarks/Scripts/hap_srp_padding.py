"""Why HAP-python 5.0.0 fails about 1 % of pairings with aiohomekit (AuthenticationError at M4).

HAP-python's SRP server (pyhap/hsrp.py) hashes B, the premaster secret S and the session key K
as minimal big-endian bytes; aiohomekit (like iOS, RFC 5054) pads them to their full length.
Whenever one of them starts with a zero byte (about 3 in 256 sessions) the two sides compute
different proofs, and HAP-python answers M3 with an authentication error.

Runs both SRP halves in-process, as in pair-setup M1..M4, and counts the mismatches by cause:
  python hap_srp_padding.py PYHAP_SITE_PACKAGES AIOHOMEKIT_SITE_PACKAGES [TRIALS]
"""

import hashlib
import sys

sys.path[:0] = [sys.argv[1], sys.argv[2]]
trials = int(sys.argv[3]) if len(sys.argv) > 3 else 3000

from aiohomekit.crypto.srp import SrpClient  # noqa: E402
from pyhap.hsrp import Server  # noqa: E402
from pyhap.params import get_srp_context  # noqa: E402

code = "031-45-154"
ctx = get_srp_context(3072, hashlib.sha512, 16)
failures = 0
causes = {"B": 0, "S": 0, "K": 0}
for _ in range(trials):
    server = Server(ctx, b"Pair-Setup", code.encode())
    salt, b_value = server.get_challenge()
    client = SrpClient("Pair-Setup", code)
    client.set_salt(bytearray(salt))
    # M2 carries B as HAP-python encodes it (pyhap/hap_handler.py: long_to_bytes).
    client.set_server_public_key(server.Bb)
    server.set_A(bytes(client.get_public_key_bytes()))
    if server.verify(client.get_proof_bytes()) is None:
        failures += 1
        full = ctx["N_len"] // 8
        for name, raw, length in (("B", server.Bb, full), ("S", server.Sb, full), ("K", server.Kb, 64)):
            if len(raw) < length:
                causes[name] += 1
print(
    f"{failures} of {trials} pair-setups fail at M4 ({100 * failures / trials:.2f} %, 3/256 = 1.17 % expected); "
    f"with a leading zero byte in B: {causes['B']}, S: {causes['S']}, K: {causes['K']}"
)
