#!/usr/bin/env python3
# How SRPServerTests' reference values were made: SRP-6a (RFC 5054 group 3072, SHA-512, HAP's
# padding) in Python's integers, independent of the Swift code. It searches a server secret for
# which B and S both have a leading zero byte (about 2 minutes); A = g^1. Prints the hex values.
import hashlib
N = int("""FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD
EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED
EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F
83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B
E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510
15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7
ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C
BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF""".replace("\n",""), 16)
g = 5; L = 384
H = lambda b: hashlib.sha512(b).digest()
pad = lambda n: n.to_bytes(L, "big")
raw = lambda n: n.to_bytes(max(1, (n.bit_length()+7)//8), "big")
I = b"Pair-Setup"; P = b"518-08-582"
salt = bytes(range(1, 17))
k = int.from_bytes(H(raw(N) + pad(g)), "big")
x = int.from_bytes(H(salt + H(I + b":" + P)), "big")
v = pow(g, x, N)
# client secret a: A with a leading zero byte (PAD matters)
a = 1
while True:
    A = pow(g, a, N)
    if A < 1 << (8*(L-1)): break
    a += 1
# server secret b (32 bytes): B and S both with a leading zero byte
for i in range(1, 1 << 20):
    bb = hashlib.sha256(i.to_bytes(4, "big")).digest()
    b = int.from_bytes(bb, "big")
    B = (k*v + pow(g, b, N)) % N
    if B >= 1 << (8*(L-1)): continue
    u = int.from_bytes(H(pad(A) + pad(B)), "big")
    S = pow(A * pow(v, u, N), b, N)
    if S < 1 << (8*(L-1)): break
K = H(pad(S))
M1 = H(bytes(p ^ q for p, q in zip(H(raw(N)), H(raw(g)))) + H(I) + salt + pad(A) + pad(B) + K)
M2 = H(pad(A) + M1 + K)
print("a", a, "i", i)
for name, val in [("secret", bb), ("A", pad(A)), ("B", pad(B)), ("M1", M1), ("K", K), ("M2", M2)]:
    print(name, val.hex())
