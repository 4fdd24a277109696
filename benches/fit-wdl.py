#!/usr/bin/env python3
"""Fits the win/draw/loss model behind UCI_ShowWDL and the reported centipawns to self-play data
(`sentinel datagen` files), and writes the sample of positions that pins the model to the network.

The model, as Stockfish's: with v the score in the search's centipawns (side to move) and m the
material on the board (pawn 1, knight and bishop 3, rook 5, queen 9, both sides, clamped to 17..78),
    win  = 1 / (1 + exp((a(m) - v) / b(m)))
    loss = 1 / (1 + exp((a(m) + v) / b(m)))
    draw = 1 - win - loss
with a and b quadratic in m / 58. a(1), the score with a 50 % chance to win with 58 points of
material, is the search's score that Sentinel reports as 100 cp (as Stockfish 15.1 does).

Prints the six coefficients, the normalisation and the coefficients on the reported scale (as
src/search/win_rate.rs holds them), the calibration of the fit (expected score predicted against
scored, in ten bins), and the same figures for the model src/search/win_rate.rs has now with
--current N A0 A1 A2 B0 B1 B2 (its NORMALIZE_TO_PAWN, A and B).

    benches/fit-wdl.py DATA.bin [DATA.bin ...] [--current N A0 A1 A2 B0 B1 B2]
        [--sample N FILE]   also write N positions (seeded, spread over the files) as
                            `FEN;result` lines: src/search/win_rate.rs's test reads them

Needs numpy and scipy.
"""
import argparse
import struct
import sys

import numpy as np
from scipy.optimize import minimize

VALUE = {1: 1, 2: 3, 3: 3, 4: 5, 5: 9, 6: 0}
LETTER = {1: "p", 2: "n", 3: "b", 4: "r", 5: "q", 6: "k"}


def fen(record):
    """The position of a packed record (src/tune/packed.rs) as FEN."""
    occupied = struct.unpack("<Q", record[:8])[0]
    board = {}
    slot = 0
    for square in range(64):
        if occupied >> square & 1:
            code = (record[8 + slot // 2] >> (4 * (slot % 2))) & 15
            letter = LETTER[code & 7]
            board[square] = letter if code & 8 else letter.upper()
            slot += 1
    ranks = []
    for rank in range(7, -1, -1):
        text, empty = "", 0
        for file in range(8):
            piece = board.get(rank * 8 + file)
            if piece is None:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += piece
        ranks.append(text + (str(empty) if empty else ""))
    rights = record[27]
    castling = "".join(c for bit, c in enumerate("KQkq") if rights >> bit & 1) or "-"
    ep = record[28]
    en_passant = "-" if ep == 255 else "abcdefgh"[ep % 8] + str(ep // 8 + 1)
    side = "b" if record[27] & 0x80 else "w"
    fullmove = struct.unpack("<H", record[30:32])[0]
    return f"{'/'.join(ranks)} {side} {castling} {en_passant} {record[29]} {fullmove}"


def read(path):
    records = []
    with open(path, "rb") as f:
        header = f.read(16)
        if header[:8] != b"SNTLPOS\0":
            sys.exit(f"{path}: not a Sentinel training file")
        while True:
            record = f.read(32)
            if len(record) < 32:
                break
            records.append(record)
    return records


def features(records):
    """Score and result from the side to move's view, and the material, of each record."""
    scores, materials, results = [], [], []
    for record in records:
        occupied = struct.unpack("<Q", record[:8])[0]
        count = bin(occupied).count("1")
        materials.append(sum(VALUE[(record[8 + i // 2] >> (4 * (i % 2))) & 7] for i in range(count)))
        score = struct.unpack("<h", record[24:26])[0]
        result = record[26] / 2.0  # White's points
        if record[27] & 0x80:
            score, result = -score, 1.0 - result
        scores.append(score)
        results.append(result)
    return np.array(scores, dtype=float), np.array(materials, dtype=float), np.array(results)


def model(p, v, m):
    a = p[0] + p[1] * m + p[2] * m * m
    b = np.maximum(p[3] + p[4] * m + p[5] * m * m, 1.0)
    pw = 1 / (1 + np.exp((a - v) / b))
    pl = 1 / (1 + np.exp((a + v) / b))
    return pw, np.clip(1 - pw - pl, 1e-9, 1), pl


def log_loss(p, v, m, r):
    pw, pd, pl = model(p, v, m)
    eps = 1e-9
    return -np.mean((r == 1.0) * np.log(pw + eps) + (r == 0.5) * np.log(pd) + (r == 0.0) * np.log(pl + eps))


def calibration(p, v, m, r):
    """Predicted against scored expected score in ten bins of the prediction, and the mean
    absolute gap weighted by the bins' sizes."""
    pw, pd, _ = model(p, v, m)
    expected = pw + pd / 2
    rows, gap = [], 0.0
    for i in range(10):
        inside = (expected >= i / 10) & (expected < (i + 1) / 10 if i < 9 else expected <= 1)
        if inside.sum() == 0:
            continue
        predicted, scored = expected[inside].mean(), r[inside].mean()
        rows.append(f"  {i / 10:.1f}-{(i + 1) / 10:.1f}: {inside.sum():7d} positions, predicted {predicted:.3f}, scored {scored:.3f}")
        gap += inside.sum() * abs(predicted - scored)
    return rows, gap / len(v)


def report(name, p, v, m, r):
    rows, gap = calibration(p, v, m, r)
    print(f"{name}: A = {p[0]:.2f}, {p[1]:.2f}, {p[2]:.2f}; B = {p[3]:.2f}, {p[4]:.2f}, {p[5]:.2f}")
    print(f"  mean log loss {log_loss(p, v, m, r):.4f}, calibration error {gap:.4f}")
    pawn = round(p[0] + p[1] + p[2])
    reported = ", ".join(f"{x * 100 / pawn:.2f}" for x in p[:3]), ", ".join(f"{x * 100 / pawn:.2f}" for x in p[3:])
    print(f"  100 reported cp = {p[0] + p[1] + p[2]:.1f} of the search's: NORMALIZE_TO_PAWN = {pawn};")
    print(f"  in reported centipawns, A = [{reported[0]}], B = [{reported[1]}]")
    print("\n".join(rows))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--current", nargs=7, type=float, metavar="C")
    parser.add_argument("--sample", nargs=2, metavar=("N", "FILE"))
    args = parser.parse_args()
    records = [record for path in args.data for record in read(path)]
    v, m, r = features(records)
    v = np.clip(v, -4000, 4000)
    m = np.clip(m, 17, 78) / 58.0
    print(f"{len(v)} positions")
    fit = minimize(lambda p: log_loss(p, v, m, r), [200, 0, 0, 100, 0, 0], method="Nelder-Mead",
                   options={"maxiter": 40000, "xatol": 1e-3, "fatol": 1e-10})
    report("fitted", fit.x, v, m, r)
    if args.current:
        pawn, *coefficients = args.current
        report("current", np.array(coefficients) * pawn / 100, v, m, r)
    if args.sample:
        count, path = int(args.sample[0]), args.sample[1]
        chosen = np.random.default_rng(1).choice(len(records), size=min(count, len(records)), replace=False)
        with open(path, "w") as out:
            for i in sorted(chosen):
                white = records[i][26]
                result = {0: "0-1", 1: "1/2-1/2", 2: "1-0"}[white]
                out.write(f"{fen(records[i])};{result}\n")
        print(f"wrote {len(chosen)} positions to {path}")


if __name__ == "__main__":
    main()
