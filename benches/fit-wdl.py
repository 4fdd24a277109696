#!/usr/bin/env python3
"""Fits the win/draw/loss model behind UCI_ShowWDL to self-play data (`sentinel datagen` files).

The model, as Stockfish's: with v the score in centipawns (side to move) and m the material on
the board (pawn 1, knight and bishop 3, rook 5, queen 9, both sides, clamped to 17..78),
    win  = 1 / (1 + exp((a(m) - v) / b(m)))
    loss = 1 / (1 + exp((a(m) + v) / b(m)))
    draw = 1 - win - loss
with a and b quadratic in m / 58. Prints the six coefficients for src/search/win_rate.rs.

Usage: benches/fit-wdl.py DATA.bin [DATA.bin ...]   (needs numpy and scipy)
"""
import struct
import sys

import numpy as np
from scipy.optimize import minimize

VALUE = {1: 1, 2: 3, 3: 3, 4: 5, 5: 9, 6: 0}


def read(path):
    scores, materials, results = [], [], []
    with open(path, "rb") as f:
        header = f.read(16)
        if header[:8] != b"SNTLPOS\0":
            sys.exit(f"{path}: not a Sentinel training file")
        while True:
            record = f.read(32)
            if len(record) < 32:
                break
            occupied = struct.unpack("<Q", record[:8])[0]
            count = bin(occupied).count("1")
            material = sum(VALUE[(record[8 + i // 2] >> (4 * (i % 2))) & 7] for i in range(count))
            score = struct.unpack("<h", record[24:26])[0]
            black_to_move = record[27] & 0x80
            result = record[26] / 2.0  # White's points
            if black_to_move:
                score, result = -score, 1.0 - result
            scores.append(score)
            materials.append(material)
            results.append(result)
    return scores, materials, results


def main():
    scores, materials, results = [], [], []
    for path in sys.argv[1:]:
        s, m, r = read(path)
        scores += s
        materials += m
        results += r
    v = np.clip(np.array(scores, dtype=float), -4000, 4000)
    m = np.clip(np.array(materials, dtype=float), 17, 78) / 58.0
    r = np.array(results)
    win, draw, loss = (r == 1.0), (r == 0.5), (r == 0.0)

    def model(p):
        a = p[0] + p[1] * m + p[2] * m * m
        b = np.maximum(p[3] + p[4] * m + p[5] * m * m, 1.0)
        pw = 1 / (1 + np.exp((a - v) / b))
        pl = 1 / (1 + np.exp((a + v) / b))
        return pw, np.clip(1 - pw - pl, 1e-9, 1), pl

    def loss_fn(p):
        pw, pd, pl = model(p)
        eps = 1e-9
        return -np.mean(win * np.log(pw + eps) + draw * np.log(pd) + loss * np.log(pl + eps))

    fit = minimize(loss_fn, [200, 0, 0, 100, 0, 0], method="Nelder-Mead", options={"maxiter": 20000, "xatol": 1e-3, "fatol": 1e-9})
    print(f"{len(v)} positions, mean log loss {fit.fun:.4f}")
    print("A:", ", ".join(f"{x:.2f}" for x in fit.x[:3]))
    print("B:", ", ".join(f"{x:.2f}" for x in fit.x[3:]))


if __name__ == "__main__":
    main()
