#!/usr/bin/env python3
"""The page of `sentinel serve` in a real headless Chromium, as a person uses it: squares
clicked on the board, buttons pressed, text typed; each check reads what the page shows.
tools/browser-test.sh installs what it needs and runs it (from .ci/run).

    python3 tools/browser-test.py [--binary target/debug/sentinel] [--screenshots docs]

It starts the server on a free loopback port with a fresh database where the server keeps
one, runs each test, and prints `N passed, N failed`; it exits 1 if any failed. With
--screenshots it saves a PNG of each mode there (docs/page-*.png).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

TIMEOUT = 30.0

# Chromium as the issue asks: headless, no sandbox (CI runs as root), nothing fetched from
# the network (the machine's network is closed), a profile of its own.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


class Skipped(Exception):
    """A test that this server cannot run (one built without the games API)."""


class Server:
    """`sentinel serve` on a free loopback port."""

    def __init__(self, binary, workdir):
        args = [binary, "serve", "--listen", "127.0.0.1:0"]
        help_text = subprocess.run([binary, "help", "serve"], capture_output=True, text=True).stdout
        if "--db" in help_text:
            args += ["--db", os.path.join(workdir, "games.db")]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workdir)
        line = self.process.stdout.readline().strip()
        match = re.match(r"listening on (http://\S+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"the server did not start: {line!r} {self.process.stderr.read()}")
        self.url = match.group(1)
        self.stderr = []
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()

    def has(self, path):
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as answer:
                return answer.status == 200
        except Exception:
            return False

    def stop(self):
        self.process.kill()
        self.process.wait()


class Page:
    """One browser session (its own profile, so its own cookies) on the page."""

    def __init__(self, url, width=1100, height=760, phone=False):
        options = webdriver.ChromeOptions()
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        if phone:
            # A headless window is at least 500 pixels wide: a phone's screen is emulated.
            metrics = {"width": width, "height": height, "pixelRatio": 1}
            options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
        self.profile = tempfile.mkdtemp(prefix="sentinel-chromium-")
        options.add_argument(f"--user-data-dir={self.profile}")
        options.add_argument(f"--window-size={width},{height}")
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
        self.driver = webdriver.Chrome(service=Service(driver), options=options)
        self.url = url
        self.open("/")

    def open(self, path):
        self.driver.get(self.url + path)
        self.wait(lambda: self.js("return document.body.dataset.ready") == "true", "the page to start")

    def close(self):
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, condition, what, timeout=TIMEOUT):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if condition():
                    return
            except Exception:
                pass
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; message: {self.message()!r}; console: {self.console()}")

    def console(self):
        try:
            return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]
        except Exception:
            return []

    def by_id(self, name):
        return self.driver.find_element(By.ID, name)

    def click(self, name):
        self.by_id(name).click()

    def text(self, name):
        return self.by_id(name).text

    def message(self):
        try:
            return self.text("message")
        except Exception:
            return ""

    def tab(self, name):
        self.driver.find_element(By.CSS_SELECTOR, f'#tabs button[data-tab="{name}"]').click()

    def fen(self):
        return self.by_id("board").get_attribute("data-fen")

    def square(self, name):
        """Clicks the centre of a square, as a person does, wherever the board is turned."""
        board = self.by_id("board")
        rect = board.rect
        size = rect["width"] / 8
        file, rank = ord(name[0]) - ord("a"), int(name[1]) - 1
        white_below = "orientation-black" not in (board.get_attribute("class") or "")
        column = file if white_below else 7 - file
        row = 7 - rank if white_below else rank
        x = (column + 0.5) * size - rect["width"] / 2
        y = (row + 0.5) * size - rect["height"] / 2
        ActionChains(self.driver).move_to_element_with_offset(board, x, y).click().perform()

    def move(self, orig, dest):
        before = self.fen()
        self.square(orig)
        self.square(dest)
        return before

    def select(self, name, value):
        from selenium.webdriver.support.ui import Select

        Select(self.by_id(name)).select_by_value(value)

    def type(self, name, text):
        field = self.by_id(name)
        field.clear()
        field.send_keys(text)

    def screenshot(self, folder, name):
        if folder:
            time.sleep(0.5)  # the board's last move slides into place
            path = os.path.join(folder, name)
            self.driver.save_screenshot(path)
            print(f"  saved {path}")


def start_engine_game(page, fen, colour="white", level="0"):
    page.tab("play")
    if page.by_id("play-setup").get_attribute("hidden") is not None:
        page.click("play-new")
    page.select("play-opponent", "engine")
    page.select("play-colour", colour)
    page.type("play-strength", level)
    page.type("play-fen", fen)
    page.click("play-start")
    page.wait(lambda: page.by_id("play-game").is_displayed(), "the game to start")


# ---------------------------------------------------------------------------------------
# The tests: each takes the server and the options, and raises on a failure.


def test_mate_against_the_engine_by_clicking(server, options):
    """A game against the engine from a position near mate, played by clicking squares to a
    result: a refused illegal move said so, the engine's reply, check marked, then a
    promotion chosen in the dialog that mates."""
    page = Page(server.url)
    try:
        # White: Kb6, pawns e7 and h2; Black: Ka8, pawn h7. 1.e8=Q+ is mate at once, so the
        # test plays a waiting move first to see the engine answer.
        start_engine_game(page, "k7/4P2p/1K6/8/8/8/7P/8 w - - 0 1")
        page.move("h2", "h5")
        page.wait(lambda: "Illegal move" in page.message(), "the illegal move to be refused")
        assert "h2" in page.message(), page.message()
        assert page.fen().startswith("k7/4P2p/1K6/8/8/8/7P/8 w"), page.fen()
        page.move("h2", "h3")
        page.wait(lambda: len(page.driver.find_elements(By.CSS_SELECTOR, "#play-moves li.move")) == 2, "the engine's reply")
        moves = page.driver.find_elements(By.CSS_SELECTOR, "#play-moves li.move")
        assert len(moves) == 2 and moves[0].text == "h3", [m.text for m in moves]
        page.move("e7", "e8")
        page.wait(lambda: page.by_id("promotion").is_displayed(), "the promotion choice")
        page.driver.find_element(By.CSS_SELECTOR, '#promotion button[data-piece="q"]').click()
        page.wait(lambda: page.js("return document.body.dataset.result") == "1-0", "the mate")
        result = page.text("play-result")
        assert "Checkmate" in result and "White wins" in result, result
        last = page.driver.find_elements(By.CSS_SELECTOR, "#play-moves li.move")[-1].text
        assert last == "e8=Q#", last
        assert page.driver.find_elements(By.CSS_SELECTOR, "cg-board square.check"), "the mated king is marked"
        assert "e8=Q#" in page.by_id("play-pgn-out").get_attribute("value")
        page.screenshot(options.screenshots, "page-play.png")
    finally:
        page.close()


def test_take_back_and_flip(server, options):
    """A game that goes on from a PGN's last position; a move and the engine's answer taken
    back; the board turned."""
    page = Page(server.url)
    try:
        start_engine_game(page, "1. e4 e5 2. Nf3 Nc6 {the Ruy Lopez next?} *", colour="white", level="2")
        start = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w"
        page.wait(lambda: page.fen().startswith(start), "the game from the PGN's position")
        page.move("f1", "b5")
        page.wait(lambda: len(page.driver.find_elements(By.CSS_SELECTOR, "#play-moves li.move")) == 2, "the engine's reply")
        page.click("play-takeback")
        page.wait(lambda: page.fen().startswith(start), "the takeback")
        assert not page.driver.find_elements(By.CSS_SELECTOR, "#play-moves li.move")
        page.click("play-flip")
        page.wait(lambda: page.driver.find_elements(By.CSS_SELECTOR, ".cg-wrap.orientation-black"), "the flip")
    finally:
        page.close()


def test_analysis_shows_live_lines_and_the_best_move(server, options):
    """A FEN analysed: lines arrive over the WebSocket, the bar and the arrow follow; a move
    on the board analyses the new position; stop stops."""
    page = Page(server.url)
    try:
        page.tab("analyse")
        page.type("analyse-input", "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 2 3")
        page.click("analyse-load")
        lines = lambda: page.driver.find_elements(By.CSS_SELECTOR, "#analyse-lines li")
        page.wait(lambda: len(lines()) == 3, "three live lines")
        page.wait(lambda: lines()[0].text.startswith("#1") or "Qxf7#" in lines()[0].text, "the mate in one found")
        page.wait(lambda: page.driver.find_elements(By.CSS_SELECTOR, "cg-container svg g, svg.cg-shapes g"), "the arrow")
        assert page.text("evalbar-text"), "the bar shows the score"
        page.click("analyse-stop")
        page.wait(lambda: "Stopped" in page.text("analyse-status") or "Analysing" not in page.text("analyse-status"), "stop")
        page.move("h5", "f7")
        page.wait(lambda: page.fen().startswith("r1bqkbnr/pppp1Qpp"), "the move played on the board")
        page.wait(lambda: "White wins" in page.text("analyse-status"), "the new position analysed")
        page.click("analyse-back")
        page.click("analyse-go")
        page.wait(lambda: len(lines()) == 3 and "Qxf7#" in lines()[0].text, "the lines of the position before")
        page.screenshot(options.screenshots, "page-analyse.png")
    finally:
        page.close()


OPERA = """[Event "Paris"]
[White "Morphy"]
[Black "Duke Karl / Count Isouard"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7
14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0
"""


def test_review_with_its_graph(server, options):
    """A PGN reviewed: accuracy per side, the moves with their marks, and a click on the
    graph that goes to the move under it."""
    page = Page(server.url)
    try:
        page.tab("review")
        page.js("document.getElementById('review-input').value = arguments[0]", OPERA)
        page.type("review-depth", "6")
        page.click("review-go")
        page.wait(lambda: page.by_id("review-out").is_displayed(), "the review", timeout=120)
        accuracy = page.text("review-accuracy")
        assert "Morphy: accuracy" in accuracy and "Duke Karl" in accuracy, accuracy
        moves = page.driver.find_elements(By.CSS_SELECTOR, "#review-moves li.move")
        assert len(moves) == 33 and moves[-1].text.startswith("Rd8#"), [m.text for m in moves]
        graph = page.driver.find_element(By.CSS_SELECTOR, "#review-graph svg")
        assert graph.find_elements(By.CSS_SELECTOR, "path.graph-white")
        width = graph.rect["width"]
        # A click a quarter of the way along goes to about the eighth move.
        ActionChains(page.driver).move_to_element_with_offset(graph, -width / 4, 0).click().perform()
        page.wait(lambda: page.by_id("review-out").get_attribute("data-ply") in {"7", "8", "9"}, "the graph's click")
        ply = int(page.by_id("review-out").get_attribute("data-ply"))
        current = page.text("review-current")
        assert current.startswith(f"{(ply + 1) // 2}."), current
        page.screenshot(options.screenshots, "page-review.png")
    finally:
        page.close()


def test_a_phone_sized_screen(server, options):
    """The page on a phone's width: the board fits the screen and the panel goes below."""
    page = Page(server.url, width=390, height=844, phone=True)
    try:
        board = page.by_id("board").rect
        width = page.js("return document.documentElement.clientWidth")
        assert board["width"] <= width and board["width"] > 300, (board, width)
        panel = page.by_id("panel-play").rect
        assert panel["y"] >= board["y"] + board["height"], (panel, board)
        overflow = page.js("return document.documentElement.scrollWidth > document.documentElement.clientWidth")
        assert not overflow, "nothing wider than the screen"
        start_engine_game(page, "", level="0")
        page.move("d2", "d4")
        page.wait(lambda: len(page.driver.find_elements(By.CSS_SELECTOR, "#play-moves li.move")) == 2, "the engine's reply")
        page.screenshot(options.screenshots, "page-phone.png")
    finally:
        page.close()


def test_nothing_is_fetched_from_elsewhere(server, options):
    """Every resource the page loads comes from the server itself."""
    page = Page(server.url)
    try:
        urls = page.js("return performance.getEntriesByType('resource').map(e => e.name)")
        urls.append(page.driver.current_url)
        assert urls and all(url.startswith(server.url) or url.startswith("ws") for url in urls), urls
    finally:
        page.close()


def moves_shown(page):
    return [item.text for item in page.driver.find_elements(By.CSS_SELECTOR, "#play-moves li.move")]


def sign(page, kind, name, password):
    page.tab("account")
    page.type("account-user", name)
    page.type("account-password", password)
    page.click("account-register" if kind == "register" else "account-login")
    page.wait(lambda: page.js("return document.body.dataset.user") == name, f"{kind} as {name}")


def test_sign_up_play_sign_out_sign_in_resume(server, options):
    """An account made, a game against the engine kept as it is played, signed out (the games
    are gone from the page), signed in again, the game found in the list and resumed."""
    if not server.has("/api/account"):
        raise Skipped("this server has no accounts")
    page = Page(server.url)
    try:
        sign(page, "register", "ann", "a long enough password")
        start_engine_game(page, "", level="0")
        page.move("e2", "e4")
        page.wait(lambda: len(moves_shown(page)) == 2, "the engine's reply")
        # A reload (a lost connection, a closed tab opened again) comes back to the game.
        page.open("/")
        page.wait(lambda: len(moves_shown(page)) == 2, "the game after a reload")
        page.move("d2", "d4")
        page.wait(lambda: len(moves_shown(page)) == 4, "the engine's second reply")
        fen, played = page.fen(), moves_shown(page)
        page.tab("account")
        page.click("account-logout")
        page.wait(lambda: page.js("return document.body.dataset.user") == "", "the sign-out")
        page.tab("games")
        page.wait(lambda: "Sign in" in page.text("games-status"), "a guest has no list")
        sign(page, "login", "ann", "a long enough password")
        page.tab("games")
        page.wait(lambda: page.driver.find_elements(By.CSS_SELECTOR, "#games-list li"), "the list of games")
        page.screenshot(options.screenshots, "page-games.png")
        page.driver.find_element(By.CSS_SELECTOR, "#games-list li button").click()
        page.wait(lambda: page.fen() == fen and moves_shown(page) == played, "the game resumed as it was")
        page.move("g1", "f3")
        page.wait(lambda: len(moves_shown(page)) == 6, "the game going on after the resume")
    finally:
        page.close()


def test_two_browsers_play_each_other(server, options):
    """A game for a friend: the host's link opened in another browser session, the moves of
    each pushed to the other, a move out of turn refused, a spectator who sees and cannot
    move, and the mate announced to both with its winner."""
    if not server.has("/api/account"):
        raise Skipped("this server has no games between people")
    host = Page(server.url)
    friend = spectator = None
    try:
        host.tab("play")
        host.select("play-opponent", "friend")
        host.select("play-colour", "white")
        host.click("play-start")
        host.wait(lambda: host.text("invite-code"), "the invitation")
        code = host.text("invite-code")
        link = host.by_id("invite-link").get_attribute("href")
        assert link.endswith(f"/join/{code}"), link
        friend = Page(server.url)
        friend.open(f"/join/{code}")
        friend.wait(lambda: "orientation-black" in friend.by_id("board").get_attribute("class"), "the friend seated as Black")
        host.wait(lambda: host.by_id("play-invite").get_attribute("hidden") is not None, "the host told the friend came")
        # Out of turn: Black's pieces do not move while White is to move.
        friend.move("e7", "e5")
        time.sleep(0.5)
        assert friend.fen().split()[1] == "w" and "4p3" not in friend.fen().split()[0], friend.fen()
        host.move("f2", "f3")
        friend.wait(lambda: friend.fen().startswith("rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b"), "the move pushed")
        friend.move("e7", "e5")
        host.wait(lambda: moves_shown(host) == ["f3", "e5"], "the friend's move pushed")
        watch = host.by_id("watch-link").get_attribute("href")
        spectator = Page(server.url)
        spectator.open(watch[len(server.url):])
        spectator.wait(lambda: moves_shown(spectator) == ["f3", "e5"], "the spectator sees the game")
        spectator.move("g2", "g4")
        time.sleep(0.5)
        assert moves_shown(spectator) == ["f3", "e5"], "a spectator cannot move"
        host.move("g2", "g4")
        friend.wait(lambda: len(moves_shown(friend)) == 3, "the third move pushed")
        friend.move("d8", "h4")
        for page in (host, friend, spectator):
            page.wait(lambda page=page: "Checkmate. Black wins" in page.text("play-result"), "the mate announced")
        friend.screenshot(options.screenshots, "page-friend.png")
    finally:
        for page in (host, friend, spectator):
            if page:
                page.close()


TESTS = [
    test_mate_against_the_engine_by_clicking,
    test_take_back_and_flip,
    test_analysis_shows_live_lines_and_the_best_move,
    test_review_with_its_graph,
    test_a_phone_sized_screen,
    test_nothing_is_fetched_from_elsewhere,
    test_sign_up_play_sign_out_sign_in_resume,
    test_two_browsers_play_each_other,
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default="target/debug/sentinel")
    parser.add_argument("--screenshots", default=None, help="save a PNG of each mode in this folder")
    parser.add_argument("-k", default="", help="run only the tests whose name has this in it")
    options = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="sentinel-browser-")
    server = Server(os.path.abspath(options.binary), workdir)
    passed = failed = skipped = 0
    try:
        for test in TESTS:
            if options.k not in test.__name__:
                continue
            started = time.time()
            try:
                test(server, options)
                passed += 1
                print(f"ok     {test.__name__} ({time.time() - started:.1f} s)")
            except Skipped as why:
                skipped += 1
                print(f"skip   {test.__name__}: {why}")
            except Exception:
                failed += 1
                print(f"FAILED {test.__name__} ({time.time() - started:.1f} s)")
                traceback.print_exc()
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    if failed:
        print("server's stderr:\n" + "".join(server.stderr)[-3000:])
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
