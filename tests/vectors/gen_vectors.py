#!/usr/bin/env python3
"""Test vectors for the BLS12-381 reference backend, made by an independent
implementation: py_ecc (pip install py_ecc). The output, tests/vectors/bls12_381.txt, is
committed, so CI does not need py_ecc; rerun this script to regenerate it (it is
deterministic).

Format: one record per line, space-separated tokens; lines starting with '#' are comments.
Numbers are canonical big-endian hex without 0x. An Fp2 value is two tokens, c0 then c1.
A point is two (G1) or four (G2: x0 x1 y0 y1) tokens, or the single token 'inf'.
  fp_add A B R | fp_sub A B R | fp_mul A B R | fp_inv A R | fp_sqrt A (R | none)
  fr_add A B R | fr_sub A B R | fr_mul A B R | fr_inv A R
  fp2_add A0 A1 B0 B1 R0 R1 | fp2_mul ... | fp2_inv A0 A1 R0 R1 | fp2_sqrt A0 A1 (R0 R1 | none)
  g1_mul K POINT          K * generator (K any integer < 2^256)
  g1_mulp POINT K POINT   K * P for a random P
  g1_enc POINT COMPRESSED_HEX UNCOMPRESSED_HEX
  g1_bad HEX ERROR        a bad encoding and the error it must give: flags, infinity,
                          range, curve or subgroup
  msm_g1 N                followed by N lines 'K POINT', then one line 'res POINT'
and the same with g2_ for G2. sqrt results may be either root.
"""

import os
import random

from py_ecc.optimized_bls12_381 import (G1, G2, Z1, Z2, FQ, FQ2, add, multiply, neg,
                                        normalize, curve_order as R,
                                        field_modulus as P, is_on_curve, b, b2)
from py_ecc.bls.point_compression import (compress_G1, compress_G2,
                                          modular_squareroot_in_FQ2)

rng = random.Random(20240601)
out = []


def h(x):
    return "%x" % x


def fp2(x):  # FQ2 -> "c0 c1"
    return "%x %x" % (x.coeffs[0].n if hasattr(x.coeffs[0], "n") else int(x.coeffs[0]),
                      x.coeffs[1].n if hasattr(x.coeffs[1], "n") else int(x.coeffs[1]))


def c(x):  # coefficient of FQ2 as int
    return x.n if hasattr(x, "n") else int(x)


def pt1(p):
    if p[2] == FQ.zero():
        return "inf"
    x, y = normalize(p)
    return "%x %x" % (x.n, y.n)


def pt2(p):
    if p[2] == FQ2.zero():
        return "inf"
    x, y = normalize(p)
    return "%s %s" % (fp2(x), fp2(y))


def fp_sqrt(a):
    s = pow(a, (P + 1) // 4, P)
    return s if s * s % P == a else None


# ---- Fields --------------------------------------------------------------------------
out.append("# Fp")
specials = [0, 1, 2, P - 1, P - 2, (P - 1) // 2, (P + 1) // 2]
vals = specials + [rng.randrange(P) for _ in range(40)]
for i, a in enumerate(vals):
    bb = vals[(i * 7 + 3) % len(vals)]
    A, B = FQ(a), FQ(bb)
    out.append("fp_add %x %x %x" % (a, bb, (A + B).n))
    out.append("fp_sub %x %x %x" % (a, bb, (A - B).n))
    out.append("fp_mul %x %x %x" % (a, bb, (A * B).n))
    if a:
        out.append("fp_inv %x %x" % (a, (FQ.one() / A).n))
    s = fp_sqrt(a)
    out.append("fp_sqrt %x %s" % (a, h(s) if s is not None else "none"))

out.append("# Fr (Python integers modulo r)")
vals = [0, 1, 2, R - 1, R - 2] + [rng.randrange(R) for _ in range(40)]
for i, a in enumerate(vals):
    bb = vals[(i * 5 + 1) % len(vals)]
    out.append("fr_add %x %x %x" % (a, bb, (a + bb) % R))
    out.append("fr_sub %x %x %x" % (a, bb, (a - bb) % R))
    out.append("fr_mul %x %x %x" % (a, bb, a * bb % R))
    if a:
        out.append("fr_inv %x %x" % (a, pow(a, R - 2, R)))

out.append("# Fp2")
vals = [FQ2([0, 0]), FQ2([1, 0]), FQ2([0, 1]), FQ2([P - 1, P - 1]), FQ2([5, 0])]
vals += [FQ2([rng.randrange(P), rng.randrange(P)]) for _ in range(30)]
# Squares, so that sqrt has positive cases beyond chance.
vals += [v * v for v in vals[5:20]]
for i, A in enumerate(vals):
    B = vals[(i * 3 + 2) % len(vals)]
    out.append("fp2_add %s %s %s" % (fp2(A), fp2(B), fp2(A + B)))
    out.append("fp2_mul %s %s %s" % (fp2(A), fp2(B), fp2(A * B)))
    if A != FQ2.zero():
        out.append("fp2_inv %s %s" % (fp2(A), fp2(A.inv())))
    # py_ecc answers None for zero, whose square root is zero.
    s = modular_squareroot_in_FQ2(A) if A != FQ2.zero() else A
    out.append("fp2_sqrt %s %s" % (fp2(A), fp2(s) if s is not None else "none"))

# ---- Scalar multiplication ------------------------------------------------------------
out.append("# generator multiples")
ks = list(range(0, 9)) + [R - 1, R, R + 1, 2 * R + 5, (1 << 256) - 1]
ks += [rng.randrange(R) for _ in range(8)]
for k in ks:
    out.append("g1_mul %x %s" % (k, pt1(multiply(G1, k))))
for k in ks[:12] + ks[-4:]:
    out.append("g2_mul %x %s" % (k, pt2(multiply(G2, k))))

out.append("# random points times random scalars")
for _ in range(8):
    p = multiply(G1, rng.randrange(1, R))
    k = rng.randrange(1 << 256)
    out.append("g1_mulp %s %x %s" % (pt1(p), k, pt1(multiply(p, k))))
for _ in range(4):
    p = multiply(G2, rng.randrange(1, R))
    k = rng.randrange(1 << 256)
    out.append("g2_mulp %s %x %s" % (pt2(p), k, pt2(multiply(p, k))))

# ---- Encodings -----------------------------------------------------------------------
def be(x, n):
    return x.to_bytes(n, "big")


def g1_uncompressed(p):
    if p[2] == FQ.zero():
        return bytes([0x40]) + bytes(95)
    x, y = normalize(p)
    return be(x.n, 48) + be(y.n, 48)


def g2_uncompressed(p):
    if p[2] == FQ2.zero():
        return bytes([0x40]) + bytes(191)
    x, y = normalize(p)
    return (be(c(x.coeffs[1]), 48) + be(c(x.coeffs[0]), 48)
            + be(c(y.coeffs[1]), 48) + be(c(y.coeffs[0]), 48))


def g2_compressed(p):
    z1, z2 = compress_G2(p)
    return be(z1, 48) + be(z2, 48)


out.append("# encodings (compressed from py_ecc.bls.point_compression)")
g1pts = [Z1, G1, neg(G1)] + [multiply(G1, rng.randrange(1, R)) for _ in range(10)]
for p in g1pts:
    out.append("g1_enc %s %s %s" % (pt1(p), be(compress_G1(p), 48).hex(), g1_uncompressed(p).hex()))
g2pts = [Z2, G2, neg(G2)] + [multiply(G2, rng.randrange(1, R)) for _ in range(6)]
for p in g2pts:
    out.append("g2_enc %s %s %s" % (pt2(p), g2_compressed(p).hex(), g2_uncompressed(p).hex()))

out.append("# bad encodings")
gc = be(compress_G1(G1), 48)
gu = g1_uncompressed(G1)
bad1 = []
bad1.append((bytes([gc[0] & 0x7f]) + gc[1:], "flags"))           # compressed bytes, flag cleared
bad1.append((bytes([gu[0] | 0x80]) + gu[1:], "flags"))           # 96 bytes, flag set
bad1.append((bytes([gu[0] | 0x20]) + gu[1:], "flags"))           # sign on uncompressed
bad1.append((bytes([0xc0]) + bytes(46) + b"\x01", "infinity"))  # infinity with a bit set
bad1.append((bytes([0xe0]) + bytes(47), "infinity"))            # infinity with sign
bad1.append((bytes([0x80 | (P >> 376)]) + be(P, 48)[1:], "range"))  # x = p
bad1.append((be(P, 48) + gu[48:], "range"))
bad1.append((gu[:48] + be((normalize(G1)[1].n + 1) % P, 48), "curve"))
bad1.append((bytes(96), "curve"))                                # (0, 0) without the flag
# x with no y on the curve, and an on-curve point outside the subgroup
x = 1
while fp_sqrt((x ** 3 + 4) % P) is not None:
    x += 1
bad1.append((bytes([0x80]) + be(x, 48)[1:], "curve"))
x = 1
while fp_sqrt((x ** 3 + 4) % P) is None:
    x += 1
y = fp_sqrt((x ** 3 + 4) % P)
assert multiply((FQ(x), FQ(y), FQ.one()), R)[2] != FQ.zero()
bad1.append((bytes([0x80]) + be(x, 48)[1:], "subgroup"))
bad1.append((be(x, 48) + be(y, 48), "subgroup"))
for data, err in bad1:
    out.append("g1_bad %s %s" % (data.hex(), err))

g2c = g2_compressed(G2)
g2u = g2_uncompressed(G2)
bad2 = [(bytes([g2c[0] & 0x7f]) + g2c[1:], "flags"),
        (bytes([g2u[0] | 0x80]) + g2u[1:], "flags"),
        (bytes([0xc0]) + bytes(94) + b"\x01", "infinity"),
        (bytes([0x80 | (P >> 376)]) + be(P, 48)[1:] + bytes(48), "range"),
        (g2c[:48] + be(P, 48), "range"),
        (g2u[:144] + be((c(normalize(G2)[1].coeffs[0]) + 1) % P, 48), "curve"),
        (bytes(192), "curve")]
x = 1
while modular_squareroot_in_FQ2(FQ2([x, 0]) ** 3 + b2) is None:
    x += 1
ys = modular_squareroot_in_FQ2(FQ2([x, 0]) ** 3 + b2)
assert multiply((FQ2([x, 0]), ys, FQ2.one()), R)[2] != FQ2.zero()
bad2.append((bytes([0x80]) + bytes(47) + be(x, 48), "subgroup"))
x = 1
while modular_squareroot_in_FQ2(FQ2([x, 0]) ** 3 + b2) is not None:
    x += 1
bad2.append((bytes([0x80]) + bytes(47) + be(x, 48), "curve"))
for data, err in bad2:
    out.append("g2_bad %s %s" % (data.hex(), err))

# ---- MSM -----------------------------------------------------------------------------
def msm_case(tag, gen, zero, pt, n, special):
    bases = [multiply(gen, rng.randrange(1, R)) for _ in range(n)]
    scalars = [rng.randrange(R) for _ in range(n)]
    if special and n >= 5:
        scalars[0] = 0
        scalars[1] = 1
        bases[2] = zero                       # infinity base
        bases[3] = bases[4]                   # repeated base
        scalars[4] = R + rng.randrange(1 << 255) % ((1 << 256) - R)  # scalar >= r
        if n >= 17:
            bases[10] = bases[4]
            bases[11] = neg(bases[4])         # P and -P in one MSM
            scalars[11] = scalars[10]
            scalars[12] = R - 1
            scalars[13] = (1 << 256) - 1
    res = zero
    for k, p in zip(scalars, bases):
        res = add(res, multiply(p, k))
    out.append("msm_%s %d" % (tag, n))
    for k, p in zip(scalars, bases):
        out.append("%x %s" % (k, pt(p)))
    out.append("res %s" % pt(res))


out.append("# MSMs")
for n in (1, 2, 5, 17, 64):
    msm_case("g1", G1, Z1, pt1, n, True)
msm_case("g1", G1, Z1, pt1, 17, False)
for n in (1, 2, 5, 17, 33):
    msm_case("g2", G2, Z2, pt2, n, True)

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bls12_381.txt")
with open(path, "w") as f:
    f.write("# BLS12-381 test vectors from py_ecc; generated by gen_vectors.py, do not edit.\n")
    f.write("\n".join(out) + "\n")
print("wrote %s (%d lines)" % (path, len(out)))
