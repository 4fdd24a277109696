#!/usr/bin/env python3
"""Chess960 games between two UCI engines through python-chess, with UCI_Chess960 on (python-chess
sets it for a Chess960 board).

tools/sprt.sh plays matches of standard chess (fastchess, tools/openings.epd); this plays
Chess960 on its own: each game starts from one of the 960 start positions (chosen by a seeded
generator, each position played with both colours), and python-chess checks every move. An
illegal move, a crash or a loss on time ends the game against the engine that made it and is
counted. Also analyses one position with multipv=3 first, as an analyst would, and checks the
three lines. The last line is the match's row for docs/reliability.md (tools/reliability_row.py):
the faults of an engine whose UCI name is Sentinel's are counted, another engine's named apart.

Usage: benches/chess960-match.py ENGINE1 ENGINE2 [--games N] [--tc BASE+INC] [--seed S]
       (ENGINE is a command; needs `pip install chess`)
"""
import argparse
import os
import random
import shlex
import sys
import time

import chess
import chess.engine

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import reliability_row  # noqa: E402 (the path above first)

UCI_NAMES = {}  # engine command -> its UCI name, for the row's builds


def analyse_multipv(command):
    engine = chess.engine.SimpleEngine.popen_uci(shlex.split(command))
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3")
    infos = engine.analyse(board, chess.engine.Limit(depth=8), multipv=3)
    engine.quit()
    firsts = [info["pv"][0] for info in infos]
    assert len(firsts) == 3 and len(set(firsts)) == 3, infos
    for info in infos:
        line = board.copy()
        for move in info["pv"]:
            assert line.is_legal(move), (info, move)
            line.push(move)
    scores = [info["score"].relative.score(mate_score=100000) for info in infos]
    assert scores == sorted(scores, reverse=True), scores
    print(f"multipv=3 analysis: {[board.san(m) for m in firsts]} scores {scores}")


def play(commands, white, position, tc, grace):
    base, inc = (float(x) for x in tc.split("+"))
    board = chess.Board.from_chess960_pos(position)
    board.chess960 = True
    # python-chess turns UCI_Chess960 on itself for a Chess960 board.
    engines = [chess.engine.SimpleEngine.popen_uci(shlex.split(c)) for c in commands]
    for command, engine in zip(commands, engines):
        UCI_NAMES.setdefault(command, engine.id.get("name"))
    clocks = [base, base]
    fault = None
    try:
        while not board.is_game_over(claim_draw=True) and board.ply() < 400:
            side = white if board.turn == chess.WHITE else 1 - white
            limit = chess.engine.Limit(white_clock=clocks[white], black_clock=clocks[1 - white],
                                       white_inc=inc, black_inc=inc)
            start = time.monotonic()
            try:
                result = engines[side].play(board, limit)
            except chess.engine.EngineError as e:
                # python-chess raises this for a move it cannot play, which a GUI calls illegal.
                fault = (side, f"illegal move (as sent): {e}" if reliability_row.is_move_error(e) else f"error: {e}")
                break
            except chess.engine.EngineTerminatedError:
                fault = (side, "crash")
                break
            clocks[side] -= time.monotonic() - start
            if clocks[side] < -grace:
                fault = (side, "lost on time")
                break
            clocks[side] += inc
            if result.move is None or not board.is_legal(result.move):
                fault = (side, f"illegal move {result.move}")
                break
            board.push(result.move)
    finally:
        for engine in engines:
            try:
                engine.quit()
            except chess.engine.EngineTerminatedError:
                pass
    return board, fault


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("engines", nargs=2)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--tc", default="5+0.05")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-grace", type=float, default=0.1, help="seconds past the clock before a loss on time")
    args = parser.parse_args()
    analyse_multipv(args.engines[0])
    rng = random.Random(args.seed)
    points, faults, castles = 0.0, [], 0
    for game in range(args.games):
        position = rng.randrange(960) if game % 2 == 0 else position
        white = game % 2  # engine 0 is White in even games
        board, fault = play(args.engines, white, position, args.tc, args.time_grace)
        if fault:
            faults.append((game, position, fault))
            points += 0.0 if fault[0] == 0 else 1.0
            outcome = f"fault by engine {fault[0] + 1}: {fault[1]}"
        else:
            result = board.result(claim_draw=True)
            mine = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
            points += mine if white == 0 else 1.0 - mine
            outcome = result
        replay = chess.Board.from_chess960_pos(position)
        replay.chess960 = True
        castled = 0
        for move in board.move_stack:
            castled += replay.is_castling(move)
            replay.push(move)
        castles += castled
        print(f"game {game + 1}: position {position}, engine 1 {'White' if white == 0 else 'Black'}: "
              f"{outcome}, {board.ply()} plies, {castled} castlings")
    print(f"engine 1 scored {points}/{args.games}; castling moves {castles}; faults {len(faults)}")
    for fault in faults:
        print("  fault:", fault)
    ours, theirs = {}, {}
    for _, _, (side, text) in faults:
        kind = ("illegal" if text.startswith("illegal") else "time" if text == "lost on time"
                else "crash" if text == "crash" or text.startswith("error") else "other")
        name = UCI_NAMES.get(args.engines[side]) or ""
        counted = theirs if name and not name.lower().startswith("sentinel") else ours
        counted[kind] = counted.get(kind, 0) + 1
    played = reliability_row.played_tally(args.games, ours, theirs, players=UCI_NAMES)
    print(reliability_row.row(reliability_row.dates_text(played.dates), reliability_row.builds_text(played.players),
                              f"benches/chess960-match.py, Chess960 at {args.tc}, seed {args.seed}", played,
                              "this output"))


if __name__ == "__main__":
    main()
