#!/usr/bin/env python3
"""Writes random double Chess960 start positions, one FEN a line, for `datagen --openings`.

Each side's back rank is drawn on its own from the 960 Chess960 arrangements (bishops on
squares of both colours, the king between the rooks), as the data of several engines mixes
in for variety of openings. Castling rights are in Shredder-FEN (the rooks' files), which
Sentinel reads.

    tools/dfrc-openings.py 10000 --seed 1 > dfrc.fen
"""
import argparse
import random


def back_rank(rng):
    """One of the 960 Chess960 arrangements of a back rank, as eight piece letters."""
    rank = [None] * 8
    rank[rng.choice(range(0, 8, 2))] = "b"
    rank[rng.choice(range(1, 8, 2))] = "b"
    for piece in "qnn":
        rank[rng.choice([i for i in range(8) if rank[i] is None])] = piece
    # The three squares left hold rook, king, rook in that order.
    for square, piece in zip([i for i in range(8) if rank[i] is None], "rkr"):
        rank[square] = piece
    return rank


def rook_files(rank):
    """The files of a back rank's rooks, the king's side first, as Shredder-FEN lists them."""
    return [file for file, piece in reversed(list(zip("abcdefgh", rank))) if piece == "r"]


def position(rng):
    white, black = back_rank(rng), back_rank(rng)
    castling = "".join(rook_files(white)).upper() + "".join(rook_files(black))
    return "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w {} - 0 1".format(
        "".join(black), "".join(white).upper(), castling
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, help="how many positions")
    parser.add_argument("--seed", type=int, default=1, help="the same seed gives the same positions")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for _ in range(args.count):
        print(position(rng))


if __name__ == "__main__":
    main()
