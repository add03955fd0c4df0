#!/usr/bin/env python3
"""Checks a proof directory written by `provesim prove` with py_ecc's BLS12-381 pairing: an
independent verifier (another library's point decoding, curve arithmetic and pairing)
for provesim's Groth16 prover and JSON files (docs/prover.md). Optional, not in CI.

usage: python3 tests/check_groth16_pyecc.py DIR     (pip install py_ecc)
Prints the verdict for the proof as written and for the same proof with its last public
input plus one (which must fail). Exit 0 when the first holds and the second does not."""
import json
import sys

from py_ecc.bls.point_compression import decompress_G1, decompress_G2
from py_ecc.optimized_bls12_381 import (FQ12, add, curve_order, final_exponentiate, multiply, neg,
                                        pairing)


def g1(h):
    return decompress_G1(int(h, 16))


def g2(h):
    b = bytes.fromhex(h)
    return decompress_G2((int.from_bytes(b[:48], "big"), int.from_bytes(b[48:], "big")))


def verify(vk, proof, inputs):
    ic = [g1(h) for h in vk["ic"]]
    if len(ic) != len(inputs) + 1:
        raise ValueError("vk has %d IC points for %d inputs" % (len(ic), len(inputs)))
    acc = ic[0]
    for x, p in zip(inputs, ic[1:]):
        acc = add(acc, multiply(p, x % curve_order))
    # e(A, B) * e(-alpha, beta) * e(-acc, gamma) * e(-C, delta) == 1, one final exponentiation
    pairs = [(g2(proof["b"]), g1(proof["a"])), (g2(vk["beta_g2"]), neg(g1(vk["alpha_g1"]))),
             (g2(vk["gamma_g2"]), neg(acc)), (g2(vk["delta_g2"]), neg(g1(proof["c"])))]
    f = FQ12.one()
    for q, p in pairs:
        f = f * pairing(q, p, final_exponentiate=False)
    return final_exponentiate(f) == FQ12.one()


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    load = lambda n: json.load(open("%s/%s" % (d, n)))
    proof, vk, pub = load("proof.json"), load("vk.json"), load("public.json")
    inputs = [int(h, 16) for h in pub["inputs"]]
    ok = verify(vk, proof, inputs)
    print("%s: py_ecc says the proof is %s" % (d, "VALID" if ok else "INVALID"))
    bad = inputs[:-1] + [(inputs[-1] + 1) % curve_order]
    ok_bad = verify(vk, proof, bad)
    print("%s: with the last public input + 1, py_ecc says %s" % (d, "VALID (wrong!)" if ok_bad else "INVALID (as it must)"))
    return 0 if ok and not ok_bad else 1


if __name__ == "__main__":
    sys.exit(main())
