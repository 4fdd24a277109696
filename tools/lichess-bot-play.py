"""Plays Sentinel the way lichess-bot drives an engine, through the python-chess it runs on
(lib/engine_wrapper.py): popen_uci with its 60 s timeout, the uci_options of its default
configuration (config.yml.default), clocks and a go_commands depth in one Limit, and
pondering, the opponent playing the expected move on every other turn (ponderhit) and
another move on the rest (stop, then a new search). Exits non-zero if python-chess raises.
docs/gui.md shows a run.

    python3 tools/lichess-bot-play.py [SENTINEL]
"""

import sys
import time

import chess
import chess.engine

engine_path = sys.argv[1] if len(sys.argv) > 1 else "target/release/sentinel"
start = time.monotonic()
engine = chess.engine.SimpleEngine.popen_uci([engine_path], timeout=60.0, setpgrp=True)
print(f"python-chess {chess.__version__}: {engine.id.get('name')}, uciok after {time.monotonic() - start:.2f} s")
engine.configure({"Move Overhead": 100, "Threads": 4, "Hash": 512, "SyzygyPath": "./syzygy/", "UCI_ShowWDL": True})
board = chess.Board()
game = object()
clock = {chess.WHITE: 60.0, chess.BLACK: 60.0}
for turn in range(8):
    limit = chess.engine.Limit(
        white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK], white_inc=1.0, black_inc=1.0, depth=5
    )
    began = time.monotonic()
    result = engine.play(board, limit, game=game, info=chess.engine.INFO_ALL, ponder=True)
    clock[board.turn] += 1.0 - (time.monotonic() - began)
    assert result.move in board.legal_moves, result
    score = result.info.get("score")
    wdl = result.info.get("wdl")
    print(f"{board.san(result.move):6} ponder {result.ponder}, score {score}, wdl {wdl}")
    board.push(result.move)
    if board.is_game_over():
        break
    hit = turn % 2 == 0 and result.ponder in board.legal_moves
    reply = result.ponder if hit else next(m for m in board.legal_moves if m != result.ponder)
    print(f"  opponent {board.san(reply)} ({'ponderhit' if hit else 'miss: stop'})")
    board.push(reply)
    if board.is_game_over():
        break
engine.quit()
print(board.fen())
