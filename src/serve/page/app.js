// The page's script: the board (lichess's chessground, vendored in ./chessground.min.js) and
// the tabs, each a client of the server's API. The rules are the server's: legal targets,
// SAN, check and the game's end come from POST /api/position (or a game's state), never from
// a second rules implementation here. Text from the server or other players is always set as
// text (textContent), never as markup.
import { Chessground } from './chessground.min.js';

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------
// The server

/** A refusal of the server: its message, status and JSON. */
class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

// A server started with --token needs it on every request: the page takes it from its own
// address (?token=...) once and keeps it for the tab's life.
const query = new URLSearchParams(location.search);
if (query.get('token')) sessionStorage.setItem('sentinel-token', query.get('token'));
const token = sessionStorage.getItem('sentinel-token');
let csrf = null;

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  if (csrf && method !== 'GET') headers['X-CSRF-Token'] = csrf;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch (e) {
    throw new ApiError(`the server cannot be reached (${e.message})`, 0, null);
  }
  const text = await response.text();
  let data = text;
  try {
    data = JSON.parse(text);
  } catch {
    // Plain text (a PGN).
  }
  if (!response.ok) {
    const message = (data && data.error) || text || response.statusText;
    throw new ApiError(message, response.status, data);
  }
  return data;
}

const position = (fen, moves, extra = {}) => api('POST', '/api/position', { fen: fen || 'startpos', moves, ...extra });

function socketUrl(path) {
  const url = new URL(path, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  if (token) url.searchParams.set('token', token);
  return url.href;
}

function say(text, kind = 'info') {
  const box = $('message');
  box.textContent = text || '';
  box.className = kind;
}

const colourName = (c) => (c === 'white' ? 'White' : 'Black');
const other = (c) => (c === 'white' ? 'black' : 'white');

// ---------------------------------------------------------------------------------------
// The board

/** The board's destinations from a position view: each legal move's squares, and for
 * castling in standard chess the rook's square as well (lichess lets one drop the king on it). */
function destinations(view) {
  const dests = new Map();
  const add = (from, to) => {
    if (!dests.has(from)) dests.set(from, []);
    if (!dests.get(from).includes(to)) dests.get(from).push(to);
  };
  for (const mv of view.legal) {
    add(mv.from, mv.to);
    const alt = castlingAlternative(view, mv);
    if (alt) add(mv.from, alt);
  }
  return dests;
}

function castlingAlternative(view, mv) {
  if (view.chess960 || !mv.san.startsWith('O-O') || mv.from[0] !== 'e') return null;
  const rank = mv.from[1];
  if (mv.to === `g${rank}`) return `h${rank}`;
  if (mv.to === `c${rank}`) return `a${rank}`;
  return null;
}

/** The legal moves (more than one for a promotion) a board move from `orig` to `dest` is. */
function movesFor(view, orig, dest) {
  return view.legal.filter((mv) => mv.from === orig && (mv.to === dest || castlingAlternative(view, mv) === dest));
}

const board = {
  ground: null,
  view: null,
  orientation: 'white',
  onMove: null,
  movable: null,

  init() {
    this.ground = Chessground($('board'), {
      coordinates: true,
      animation: { enabled: true, duration: 150 },
      movable: { free: false, showDests: true, color: undefined },
      premovable: { enabled: false },
      draggable: { showGhost: true },
      highlight: { lastMove: true, check: true },
      events: { select: (key) => this.selected(key) },
    });
    this.lastSelected = null;
  },

  /** Shows `view`; pieces of `movable` ('white', 'black', 'both' or null) may be moved, and
   * each move made goes to `onMove(uci)`. */
  show(view, { movable = null, onMove = null, shapes = [] } = {}) {
    this.view = view;
    this.onMove = onMove;
    this.movable = movable;
    const canMove = movable && view.legal.length > 0 && (movable === 'both' || movable === view.turn);
    // A move played or taken back slides; a jump to another place in the game does not.
    const before = this.shownMoves;
    this.shownMoves = view.moves.length;
    const step = before !== undefined && Math.abs(before - view.moves.length) <= 1;
    this.ground.set({
      animation: { enabled: step, duration: 150 },
      fen: view.fen,
      orientation: this.orientation,
      turnColor: view.turn,
      check: view.check ? view.turn : false,
      lastMove: view.last_move ? [view.last_move.from, view.last_move.to] : undefined,
      movable: {
        color: canMove ? view.turn : undefined,
        dests: canMove ? destinations(view) : new Map(),
        events: { after: (orig, dest) => this.moved(orig, dest) },
      },
    });
    this.ground.setAutoShapes(shapes);
    document.body.dataset.turn = view.turn;
    $('board').dataset.fen = view.fen;
  },

  flip() {
    this.orientation = other(this.orientation);
    this.ground.set({ orientation: this.orientation });
    renderPlayers();
    analyse.render();
  },

  setOrientation(colour) {
    this.orientation = colour;
    this.ground.set({ orientation: colour });
  },

  async moved(orig, dest) {
    const view = this.view;
    const choices = movesFor(view, orig, dest);
    let uci = choices.length ? choices[0].uci : `${orig}${dest}`;
    if (choices.length > 1) {
      const piece = await choosePromotion(view.turn);
      if (!piece) {
        this.show(view, { movable: this.movable, onMove: this.onMove });
        return;
      }
      uci = `${orig}${dest}${piece}`;
    }
    if (this.onMove) this.onMove(uci);
  },

  // A click on a square that the selected piece cannot reach: the server says why the move is
  // not legal, so the player knows it was refused and not missed.
  selected(key) {
    const view = this.view;
    const previous = this.lastSelected;
    this.lastSelected = key;
    if (!view || !previous || previous === key || !this.onMove) return;
    const ownTurn = this.movable === 'both' || this.movable === view.turn;
    const fromOwn = view.legal.some((mv) => mv.from === previous);
    if (!ownTurn || !fromOwn || movesFor(view, previous, key).length) return;
    if (view.legal.some((mv) => mv.from === key)) return; // another piece of one's own chosen
    position(view.fen, [`${previous}${key}`]).catch((e) => say(`Illegal move: ${e.message}`, 'error'));
    this.lastSelected = null;
  },
};

function choosePromotion(colour) {
  const box = $('promotion');
  box.hidden = false;
  box.dataset.colour = colour;
  return new Promise((resolve) => {
    for (const button of box.querySelectorAll('button')) {
      button.onclick = () => {
        box.hidden = true;
        resolve(button.dataset.piece || null);
      };
    }
  });
}

// ---------------------------------------------------------------------------------------
// Tabs

const tabs = {};
let currentTab = 'play';

function showTab(name) {
  currentTab = name;
  for (const button of document.querySelectorAll('#tabs button')) {
    button.classList.toggle('active', button.dataset.tab === name);
  }
  for (const panel of document.querySelectorAll('.panel')) panel.hidden = panel.id !== `panel-${name}`;
  $('evalbar').hidden = name !== 'analyse';
  document.body.dataset.tab = name;
  say('');
  if (tabs[name] && tabs[name].enter) tabs[name].enter();
  if (name !== 'analyse') analyse.stop();
  else if (analyse.on) analyse.go();
}

// ---------------------------------------------------------------------------------------
// Clocks and players

/** A seat's player, "you" for one's own, or who is awaited for a seat still empty. */
function playerName(state, colour) {
  const name = state[colour] && state[colour].name;
  if (!name) return 'waiting for a friend…';
  return state.you === colour && !state.local ? `${name} (you)` : name;
}

function formatClock(ms) {
  if (ms === null || ms === undefined) return '';
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return ms < 10000 && ms > 0 ? `${minutes}:${seconds}.${Math.floor((ms % 1000) / 100)}` : `${minutes}:${seconds}`;
}

function renderPlayers() {
  const state = play.state;
  const showNames = currentTab === 'play' && state;
  for (const [id, colour] of [
    ['top-player', other(board.orientation)],
    ['bottom-player', board.orientation],
  ]) {
    const box = $(id);
    box.querySelector('.name').textContent = showNames ? `${colourName(colour)}: ${playerName(state, colour)}` : '';
    const clock = box.querySelector('.clock');
    const ms = showNames && state.clock ? play.clockLeft(colour) : null;
    clock.textContent = formatClock(ms);
    clock.classList.toggle('running', Boolean(showNames && state.clock && state.clock.running === colour));
    clock.classList.toggle('low', ms !== null && ms < 20000);
  }
}

// ---------------------------------------------------------------------------------------
// Play: against the engine or a friend. A game is a state shaped as the games API's; without
// that API (an older server) games against the engine are kept here, with /api/move.

/** A game against the engine kept by the page, with the same state shape as the server's. */
class LocalGame {
  constructor({ colour, level, clock, fen }) {
    this.startFen = fen || 'startpos';
    this.moves = [];
    this.level = level;
    this.you = colour;
    this.clock = clock ? { white_ms: clock.initial_ms, black_ms: clock.initial_ms, increment_ms: clock.increment_ms, running: null } : null;
    this.since = null;
    this.result = '*';
    this.termination = null;
    this.view = null;
  }

  state() {
    const engine = `Sentinel (${this.level.skill !== undefined ? `skill ${this.level.skill}` : `Elo ${this.level.elo}`})`;
    const clock = this.clock && { ...this.clock };
    if (clock && clock.running && this.since !== null) {
      clock[`${clock.running}_ms`] -= performance.now() - this.since;
    }
    return {
      id: null,
      mode: 'engine',
      white: { name: this.you === 'white' ? 'You' : engine },
      black: { name: this.you === 'black' ? 'You' : engine },
      you: this.you,
      level: this.level,
      clock,
      position: this.view,
      moves: [...this.moves],
      result: this.result,
      termination: this.termination,
      invite: null,
      local: true,
    };
  }

  async start() {
    this.view = await position(this.startFen, []);
    this.settle();
    if (this.view.turn !== this.you && this.result === '*') await this.engineMove();
    return this.state();
  }

  /** The clock of the side that just moved stops (with its increment), the other's runs. */
  punch() {
    if (!this.clock) return;
    const now = performance.now();
    const mover = other(this.view.turn);
    if (this.clock.running === mover && this.since !== null) {
      this.clock[`${mover}_ms`] -= now - this.since;
      this.clock[`${mover}_ms`] += this.clock.increment_ms;
    }
    this.clock.running = this.result === '*' ? this.view.turn : null;
    this.since = now;
  }

  settle() {
    if (this.view.status !== 'playing') {
      this.result = this.view.result;
      this.termination = this.view.status;
      if (this.clock) this.clock.running = null;
    }
  }

  flagged() {
    if (!this.clock || !this.clock.running || this.result !== '*') return false;
    const side = this.clock.running;
    const left = this.clock[`${side}_ms`] - (performance.now() - this.since);
    if (left > 0) return false;
    this.clock[`${side}_ms`] = 0;
    this.clock.running = null;
    this.result = side === 'white' ? '0-1' : '1-0';
    this.termination = 'timeout';
    return true;
  }

  async move(uci) {
    if (this.result !== '*') throw new ApiError('the game is over', 400, null);
    if (this.view.turn !== this.you) throw new ApiError("it is not your move", 400, null);
    this.view = await position(this.startFen, [...this.moves, uci]);
    this.moves.push(this.view.moves[this.view.moves.length - 1]);
    this.settle();
    this.punch();
    return this.state();
  }

  async reply() {
    if (this.result === '*' && this.view.turn !== this.you) await this.engineMove();
    return this.state();
  }

  async engineMove() {
    const request = { fen: this.startFen, moves: this.moves, ...this.level };
    if (this.clock) {
      const state = this.state().clock;
      Object.assign(request, {
        wtime: Math.max(1, Math.round(state.white_ms)),
        btime: Math.max(1, Math.round(state.black_ms)),
        winc: this.clock.increment_ms,
        binc: this.clock.increment_ms,
      });
    } else {
      request.movetime = 500;
    }
    const answer = await api('POST', '/api/move', request);
    if (this.flagged() || !answer.move) return;
    this.view = await position(this.startFen, [...this.moves, answer.move]);
    this.moves.push(answer.move);
    this.settle();
    this.punch();
  }

  async takeback() {
    if (!this.moves.length) throw new ApiError('there is no move to take back', 400, null);
    let keep = this.moves.length - 1;
    // Back to the last position where it was your move, before your last move.
    const turnAt = (n) => {
      const first = this.view.fen.split(' ')[1] === 'w' ? 'white' : 'black';
      return (this.moves.length - n) % 2 === 0 ? first : other(first);
    };
    while (keep > 0 && turnAt(keep) !== this.you) keep -= 1;
    if (turnAt(keep) !== this.you) throw new ApiError('there is no move of yours to take back', 400, null);
    this.moves = this.moves.slice(0, keep);
    this.view = await position(this.startFen, this.moves);
    this.result = '*';
    this.termination = null;
    if (this.clock) {
      this.clock.running = this.view.turn;
      this.since = performance.now();
    }
    return this.state();
  }

  async resign() {
    this.result = this.you === 'white' ? '0-1' : '1-0';
    this.termination = 'resignation';
    if (this.clock) this.clock.running = null;
    return this.state();
  }
}

/** A game kept by the server (the games API): every move checked and stored there. */
class ServerGame {
  constructor(state) {
    this.id = state.id;
    this.latest = state;
    this.received = performance.now();
    this.socket = null;
  }

  state() {
    return this.latest;
  }

  update(state) {
    this.latest = state;
    this.received = performance.now();
    return state;
  }

  async move(uci) {
    return this.update(await api('POST', `/api/games/${this.id}/move`, { uci }));
  }

  async reply() {
    return this.latest;
  }

  async takeback() {
    return this.update(await api('POST', `/api/games/${this.id}/takeback`, {}));
  }

  async resign() {
    return this.update(await api('POST', `/api/games/${this.id}/resign`, {}));
  }

  async draw() {
    return this.update(await api('POST', `/api/games/${this.id}/draw`, {}));
  }

  flagged() {
    return false;
  }

  /** Follows the game's changes over its WebSocket, opened again after a dropped connection. */
  listen(onState) {
    this.closed = false;
    const open = () => {
      if (this.closed) return;
      const socket = new WebSocket(socketUrl(`/api/games/${this.id}/live`));
      this.socket = socket;
      socket.onmessage = (event) => {
        try {
          const message = JSON.parse(event.data);
          if (message && message.id === this.id) onState(this.update(message));
          else if (message && message.state && message.state.id === this.id) onState(this.update(message.state));
        } catch {
          // Not a state: ignored.
        }
      };
      socket.onclose = () => {
        if (!this.closed) setTimeout(open, 1000);
      };
    };
    open();
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
  }
}

const play = {
  game: null,
  state: null,
  serverGames: false,
  busy: false,

  init() {
    $('play-start').onclick = () => this.start();
    $('play-new').onclick = () => this.newGame();
    $('play-flip').onclick = () => board.flip();
    $('play-takeback').onclick = () => this.act(() => this.game.takeback());
    $('play-resign').onclick = () => {
      if (confirm('Resign this game?')) this.act(() => this.game.resign());
    };
    $('play-draw').onclick = () => this.act(() => this.game.draw());
    $('play-strength-kind').onchange = () => {
      const input = $('play-strength');
      if ($('play-strength-kind').value === 'elo') Object.assign(input, { min: 800, max: 2500, value: 1200 });
      else Object.assign(input, { min: 0, max: 20, value: 3 });
    };
    $('play-opponent').onchange = () => {
      for (const node of document.querySelectorAll('.engine-only')) node.hidden = $('play-opponent').value !== 'engine';
    };
    $('play-typed').onsubmit = (event) => {
      event.preventDefault();
      const text = $('play-typed-move').value.trim();
      if (text) this.move(text);
    };
    $('join-form').onsubmit = (event) => {
      event.preventDefault();
      const code = $('join-code').value.trim();
      if (code) this.join(code);
    };
    $('play-pgn-download').onclick = () => {
      const blob = new Blob([$('play-pgn-out').value], { type: 'application/x-chess-pgn' });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = 'sentinel-game.pgn';
      link.click();
      URL.revokeObjectURL(link.href);
    };
    setInterval(() => this.tick(), 200);
  },

  enter() {
    if (this.state) this.render();
    else {
      board.show(startView, {});
      renderPlayers();
    }
  },

  newGame() {
    sessionStorage.removeItem('sentinel-game');
    if (this.game && this.game.close) this.game.close();
    this.game = null;
    this.state = null;
    $('play-setup').hidden = false;
    $('play-game').hidden = true;
    $('join-form').hidden = false;
    board.show(startView, {});
    renderPlayers();
    say('');
  },

  options() {
    const clockText = $('play-clock').value;
    let clock = null;
    if (clockText) {
      const [minutes, increment] = clockText.split('+').map(Number);
      clock = { initial_ms: minutes * 1000, increment_ms: increment * 1000 };
    }
    const strength = Number($('play-strength').value);
    const level = $('play-strength-kind').value === 'elo' ? { elo: strength } : { skill: strength };
    let colour = $('play-colour').value;
    const fen = $('play-fen').value.trim() || undefined;
    return { mode: $('play-opponent').value, colour, level, clock, fen };
  },

  /** A game given as PGN goes on from its last position (the server checks every move). */
  async startingFen(text) {
    if (!text || text === 'startpos' || text.includes('/')) return text;
    const { fen, moves } = pgnMoves(text);
    return (await position(fen, moves)).fen;
  },

  async start() {
    const options = this.options();
    say('Starting…');
    try {
      options.fen = await this.startingFen(options.fen);
      if (this.serverGames) {
        const body = { mode: options.mode, colour: options.colour, clock: options.clock };
        if (options.mode === 'engine') body.level = options.level;
        if (options.fen) body.fen = options.fen;
        const game = new ServerGame(await api('POST', '/api/games', body));
        this.open(game);
      } else {
        if (options.mode !== 'engine') throw new ApiError('games with a friend need a server with the games API', 400, null);
        let colour = options.colour;
        if (colour === 'random') colour = Math.random() < 0.5 ? 'white' : 'black';
        const game = new LocalGame({ ...options, colour });
        board.setOrientation(colour);
        this.game = game;
        this.show(await game.start());
      }
      say('');
    } catch (e) {
      say(e.message, 'error');
    }
  },

  open(game) {
    if (this.game && this.game.close && this.game !== game) this.game.close();
    this.game = game;
    // A reload of the page (or a browser that lost its connection) comes back to this game.
    if (game.id) sessionStorage.setItem('sentinel-game', game.id);
    const state = game.state();
    board.setOrientation(state.you === 'black' ? 'black' : 'white');
    this.show(state);
    if (game.listen) game.listen((next) => this.show(next));
  },

  async join(code) {
    try {
      await account.ready;
      const state = await api('POST', '/api/games/join', { code });
      showTab('play');
      this.open(new ServerGame(state));
    } catch (e) {
      say(`Cannot join: ${e.message}`, 'error');
    }
  },

  async watch(id) {
    try {
      await account.ready;
      const state = await api('GET', `/api/games/${encodeURIComponent(id)}`);
      showTab('play');
      this.open(new ServerGame(state));
    } catch (e) {
      say(`Cannot watch: ${e.message}`, 'error');
    }
  },

  async resume(id) {
    try {
      const state = await api('GET', `/api/games/${encodeURIComponent(id)}`);
      showTab('play');
      this.open(new ServerGame(state));
    } catch (e) {
      say(`Cannot resume: ${e.message}`, 'error');
    }
  },

  async act(action) {
    if (!this.game || this.busy) return;
    this.busy = true;
    try {
      this.show(await action());
      say('');
    } catch (e) {
      say(e.message, 'error');
      this.show(this.game.state());
    } finally {
      this.busy = false;
    }
  },

  async move(uci) {
    if (!this.game || this.busy) return;
    this.busy = true;
    try {
      this.show(await this.game.move(uci));
      $('play-typed-move').value = '';
      say('');
      if (this.state.result === '*' && this.state.position.turn !== this.state.you) {
        say('Sentinel is thinking…');
        this.show(await this.game.reply());
        if (this.state.result === '*') say('');
      }
    } catch (e) {
      say(`Illegal move: ${e.message}`, 'error');
      this.show(this.game.state());
    } finally {
      this.busy = false;
    }
  },

  show(state) {
    this.state = state;
    this.render();
  },

  render() {
    const state = this.state;
    if (!state) return;
    $('play-setup').hidden = true;
    $('play-game').hidden = false;
    $('join-form').hidden = true;
    const view = state.position;
    const mine = state.you === 'white' || state.you === 'black';
    const over = state.result !== '*';
    if (currentTab === 'play') {
      board.show(view, { movable: mine && !over ? state.you : null, onMove: (uci) => this.move(uci) });
    }
    const title = state.mode === 'friend' ? 'Game with a friend' : 'Game against Sentinel';
    $('play-title').textContent =
      state.you === 'spectator' ? `Watching: ${playerName(state, 'white')} – ${playerName(state, 'black')}` : title;
    renderMoves($('play-moves'), view.san, view.san.length, null, view.start_fen);
    $('play-fen-out').value = view.fen;
    $('play-pgn-out').value = this.pgn();
    const result = $('play-result');
    result.hidden = !over && !view.check;
    result.textContent = over ? announce(state) : view.check ? `${colourName(view.turn)} is in check.` : '';
    result.className = over ? 'result over' : 'result check';
    document.body.dataset.result = state.result;
    $('play-takeback').hidden = state.mode !== 'engine' || !mine;
    $('play-resign').hidden = !mine || over;
    $('play-draw').hidden = state.mode !== 'friend' || !mine || over;
    const offer = state.draw_offer;
    $('play-draw').textContent = offer && offer !== state.you ? 'Accept the draw' : offer === state.you ? 'Draw offered' : 'Offer a draw';
    $('play-draw').disabled = offer === state.you;
    if (!over && mine && offer && offer !== state.you) say(`${colourName(offer)} offers a draw.`);
    const invite = state.invite;
    const seated = Boolean(state.white && state.white.name && state.black && state.black.name);
    $('play-invite').hidden = !invite || state.you === 'spectator' || seated;
    if (invite) {
      const link = new URL(invite.join_url, location.href).href;
      $('invite-link').textContent = link;
      $('invite-link').href = link;
      $('invite-code').textContent = invite.code;
      $('watch-link').href = new URL(invite.watch_url, location.href).href;
    }
    renderPlayers();
  },

  pgn() {
    const state = this.state;
    const view = state.position;
    // The server's PGN, with the players' names and the game's result in its tags.
    const name = (colour) => String((state[colour] && state[colour].name) || '?').replace(/["\\]/g, "'");
    const tags = `[White "${name('white')}"]\n[Black "${name('black')}"]\n`;
    const result = state.result || '*';
    let text = view.pgn.replace(/\[White "[^"]*"\]\n/, '').replace(/\[Black "[^"]*"\]\n/, '');
    text = text.replace(/\[Result "[^"]*"\]/, `${tags}[Result "${result}"]`);
    return text.replace(/(\*|1-0|0-1|1\/2-1\/2)\s*$/, `${result}\n`);
  },

  clockLeft(colour) {
    const state = this.state;
    if (!state || !state.clock) return null;
    let ms = state.clock[`${colour}_ms`];
    if (state.clock.running === colour && !state.local && this.game && this.game.received) {
      ms -= performance.now() - this.game.received;
    }
    if (state.local && this.game && this.game.state) {
      ms = this.game.state().clock[`${colour}_ms`];
    }
    return Math.max(0, ms);
  },

  tick() {
    if (!this.game || !this.state || !this.state.clock) return;
    if (this.game.flagged()) {
      this.show(this.game.state());
      return;
    }
    if (currentTab === 'play') renderPlayers();
  },
};

/** The result in words: who won and how, or why it is a draw. */
function announce(state) {
  const winner = state.result === '1-0' ? 'white' : state.result === '0-1' ? 'black' : null;
  const wins = winner ? `${colourName(winner)} wins` : 'Draw';
  const loser = winner && other(winner);
  switch (state.termination) {
    case 'checkmate':
      return `Checkmate. ${wins} (${state.result}).`;
    case 'stalemate':
      return `Stalemate: a draw (${state.result}).`;
    case 'repetition':
      return `Draw by threefold repetition (${state.result}).`;
    case 'fifty-moves':
      return `Draw by the fifty-move rule (${state.result}).`;
    case 'insufficient-material':
      return `Draw: neither side can mate (${state.result}).`;
    case 'resignation':
      return `${colourName(loser)} resigned. ${wins} (${state.result}).`;
    case 'timeout':
      return winner ? `${colourName(loser)}'s time is up. ${wins} (${state.result}).` : `Time is up: a draw (${state.result}).`;
    case 'agreement':
      return `Draw by agreement (${state.result}).`;
    default:
      return `${wins} (${state.result}).`;
  }
}

/** A move list in SAN, numbered from the start position `fen`'s move number (a black first
 * move after `N...`), the move at `current` (a count of moves) marked; `marks` gives a class
 * and glyph per move; a click on a move calls `onPick(count)`. */
function renderMoves(list, san, current, onPick, fen, marks = []) {
  list.replaceChildren();
  const fields = (fen && fen !== 'startpos' ? fen : 'x w - - 0 1').split(' ');
  const blackFirst = fields[1] === 'b';
  let number = Number(fields[5]) || 1;
  const cell = (text, kind) => {
    const item = document.createElement('li');
    item.textContent = text;
    item.className = kind;
    list.appendChild(item);
    return item;
  };
  if (blackFirst && san.length) {
    cell(`${number}.`, 'num');
    cell('…', 'skip');
  }
  san.forEach((name, i) => {
    const white = blackFirst ? i % 2 === 1 : i % 2 === 0;
    if (white) cell(`${number}.`, 'num');
    const item = cell(name + (marks[i] ? marks[i].glyph : ''), 'move');
    if (marks[i] && marks[i].kind) item.classList.add(marks[i].kind);
    if (i + 1 === current) item.classList.add('current');
    item.dataset.ply = String(i + 1);
    if (onPick) item.onclick = () => onPick(i + 1);
    if (!white) number += 1;
  });
  // The current move kept in sight inside the list, without scrolling the page.
  const shown = list.querySelector('.current') || list.lastElementChild;
  if (shown && list.scrollHeight > list.clientHeight) {
    // The list is positioned, so a move's offsetTop is from the list's top.
    const top = shown.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - shown.offsetHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Analyse: any position or game, the engine's lines live over /api/analyse/stream.

/** The moves of a PGN's main line as SAN tokens, and its FEN tag: enough for the server,
 * which reads and checks each move (tags, comments, variations, NAGs and numbers dropped). */
function pgnMoves(text) {
  const fenTag = /\[FEN\s+"([^"]*)"\]/.exec(text);
  let body = text.replace(/\[[^\]]*\]/g, ' ').replace(/\{[^}]*\}/g, ' ').replace(/;[^\n]*/g, ' ');
  let depth = 0;
  let flat = '';
  for (const c of body) {
    if (c === '(') depth += 1;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) flat += c;
  }
  const moves = flat
    .split(/\s+/)
    .map((t) => t.replace(/^\d+\.(\.\.)?/, '').replace(/[?!]+$/, ''))
    .filter((t) => t && !/^\$\d+$/.test(t) && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(t) && !/^\d+\.*$/.test(t));
  return { fen: fenTag ? fenTag[1] : 'startpos', moves };
}

function winChance(score) {
  if (!score) return 50;
  if (score.mate !== undefined) return score.mate > 0 ? 100 : score.mate < 0 ? 0 : 50;
  return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * score.cp)) - 1);
}

function scoreText(score) {
  if (!score) return '';
  if (score.mate !== undefined) return score.mate === 0 ? '#' : `#${score.mate}`;
  const pawns = score.cp / 100;
  return `${pawns > 0 ? '+' : ''}${pawns.toFixed(2)}`;
}

const analyse = {
  startFen: 'startpos',
  moves: [],
  cursor: 0,
  view: null,
  socket: null,
  running: false,
  wanted: null,
  lines: [],
  // Whether the player wants the engine on (Go) or off (Stop): moving through the game
  // keeps it as it is.
  on: false,

  init() {
    $('analyse-load').onclick = () => this.load($('analyse-input').value);
    $('analyse-go').onclick = () => {
      this.on = true;
      this.go();
    };
    $('analyse-stop').onclick = () => {
      this.on = false;
      this.stop();
    };
    $('analyse-flip').onclick = () => board.flip();
    $('analyse-multipv').onchange = () => this.on && this.go();
    $('analyse-first').onclick = () => this.goTo(0);
    $('analyse-back').onclick = () => this.goTo(this.cursor - 1);
    $('analyse-forward').onclick = () => this.goTo(this.cursor + 1);
    $('analyse-last').onclick = () => this.goTo(this.moves.length);
  },

  async enter() {
    if (!this.view) await this.setPosition('startpos', [], 0);
    else this.render();
  },

  async load(text) {
    text = text.trim();
    const looksPgn = !text || /^\[|\d+\.\s*\S/.test(text) || !text.includes('/');
    try {
      if (!text || text === 'startpos') await this.setPosition('startpos', [], 0);
      else if (looksPgn) {
        const { fen, moves } = pgnMoves(text);
        await this.setPosition(fen, moves, moves.length, true);
      } else await this.setPosition(text, [], 0);
      say('');
      this.on = true;
      this.go();
    } catch (e) {
      say(e.message, 'error');
    }
  },

  async setPosition(fen, moves, cursor, playOn = false) {
    const view = await position(fen, moves.slice(0, cursor), { play_on: true });
    if (playOn && moves.length) {
      // The moves as the server writes them (SAN given becomes UCI).
      const whole = await position(fen, moves, { play_on: true });
      moves = whole.moves;
    }
    this.startFen = fen;
    this.moves = moves;
    this.cursor = cursor;
    this.view = view;
    this.lines = [];
    this.render();
  },

  async goTo(cursor) {
    cursor = Math.max(0, Math.min(this.moves.length, cursor));
    if (cursor === this.cursor && this.view) return;
    try {
      this.view = await position(this.startFen, this.moves.slice(0, cursor), { play_on: true });
      this.cursor = cursor;
      this.lines = [];
      this.render();
      if (this.on) this.go();
    } catch (e) {
      say(e.message, 'error');
    }
  },

  async played(uci) {
    try {
      const moves = [...this.moves.slice(0, this.cursor), uci];
      const view = await position(this.startFen, moves, { play_on: true });
      this.moves = view.moves;
      this.cursor = moves.length;
      this.view = view;
      this.lines = [];
      this.render();
      if (this.on) this.go();
    } catch (e) {
      say(`Illegal move: ${e.message}`, 'error');
      this.render();
    }
  },

  render() {
    if (currentTab !== 'analyse' || !this.view) return;
    const best = this.lines[0];
    const shapes = [];
    this.lines.forEach((line, i) => {
      const mv = line.moves[0];
      if (mv) shapes.push({ orig: mv.slice(0, 2), dest: mv.slice(2, 4), brush: i === 0 ? 'blue' : 'paleBlue' });
    });
    board.show(this.view, { movable: 'both', onMove: (uci) => this.played(uci), shapes });
    renderMoves($('analyse-moves'), this.sanAll(), this.cursor, (n) => this.goTo(n), this.view.start_fen);
    const list = $('analyse-lines');
    list.replaceChildren();
    for (const line of this.lines) {
      const item = document.createElement('li');
      const score = document.createElement('strong');
      score.textContent = scoreText(line.score_white);
      item.append(score, ` ${line.san.join(' ')}`);
      const depth = document.createElement('span');
      depth.className = 'small';
      depth.textContent = ` (depth ${line.depth})`;
      item.append(depth);
      list.appendChild(item);
    }
    const over = this.view.status !== 'playing';
    const white = over ? (this.view.result === '1-0' ? 100 : this.view.result === '0-1' ? 0 : 50) : winChance(best && best.score_white);
    $('evalbar-white').style.height = `${white}%`;
    // White's share grows from White's side of the board.
    $('evalbar').classList.toggle('flipped', board.orientation === 'black');
    $('evalbar-text').textContent = over ? this.view.result : best ? scoreText(best.score_white) : '';
    const status = $('analyse-status');
    if (over) status.textContent = announce({ result: this.view.result, termination: this.view.status });
    else status.textContent = this.running ? 'Analysing…' : best ? 'Stopped.' : '';
  },

  sanAll() {
    if (!this.sanCache || this.sanCache.key !== this.moves.join(' ')) {
      this.sanCache = { key: this.moves.join(' '), san: null };
      position(this.startFen, this.moves, { play_on: true })
        .then((view) => {
          this.sanCache.san = view.san;
          this.render();
        })
        .catch(() => {});
    }
    if (this.sanCache.san) return this.sanCache.san;
    return this.view.san;
  },

  socketOpen() {
    if (this.socket && this.socket.readyState <= 1) return this.socket;
    const socket = new WebSocket(socketUrl('/api/analyse/stream'));
    this.socket = socket;
    socket.onopen = () => this.next();
    socket.onmessage = (event) => this.message(event.data);
    socket.onclose = () => {
      this.socket = null;
      this.searching = false;
      if (this.on) setTimeout(() => this.go(), 1000);
    };
    return socket;
  },

  /** Starts (or restarts, for the position shown now) the live analysis. */
  go() {
    if (!this.view) return;
    this.running = true;
    this.wanted = {
      fen: this.startFen,
      moves: this.moves.slice(0, this.cursor),
      multipv: Number($('analyse-multipv').value),
    };
    if (this.view.status !== 'playing') {
      this.wanted = null;
      this.running = false;
      this.render();
      return;
    }
    const socket = this.socketOpen();
    if (socket.readyState !== 1) return;
    if (this.searching) socket.send('stop');
    else this.next();
    this.render();
  },

  next() {
    if (!this.wanted || !this.socket || this.socket.readyState !== 1) return;
    const request = { ...this.wanted, play_on: undefined };
    this.wanted = null;
    this.searching = true;
    this.searchKey = JSON.stringify([request.fen, request.moves]);
    this.socket.send(JSON.stringify(request));
  },

  message(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    const current = this.searchKey === JSON.stringify([this.startFen, this.moves.slice(0, this.cursor)]);
    if (message.type === 'info') {
      if (current) {
        this.lines = message.lines;
        this.render();
      }
    } else if (message.type === 'bestmove' || message.type === 'error') {
      this.searching = false;
      if (message.type === 'bestmove' && current && message.lines && message.lines.length) this.lines = message.lines;
      if (message.type === 'error') say(message.error || 'the analysis failed', 'error');
      if (this.wanted) this.next();
      else {
        if (current) this.running = false;
        this.render();
      }
    }
  },

  stop() {
    this.running = false;
    this.wanted = null;
    if (this.socket && this.socket.readyState === 1 && this.searching) this.socket.send('stop');
    this.render();
  },
};

// ---------------------------------------------------------------------------------------
// Review: a PGN reviewed by the server, move by move, with its graph.

const MARKS = {
  inaccuracy: { glyph: '?!', kind: 'inaccuracy' },
  mistake: { glyph: '?', kind: 'mistake' },
  blunder: { glyph: '??', kind: 'blunder' },
  brilliant: { glyph: '!!', kind: 'brilliant' },
  great: { glyph: '!', kind: 'great' },
  'only move': { glyph: '', kind: 'only' },
};

const review = {
  game: null,
  cursor: 0,
  views: new Map(),

  init() {
    $('review-go').onclick = () => this.run();
    $('review-file').onchange = async () => {
      const file = $('review-file').files[0];
      if (file) $('review-input').value = await file.text();
    };
    $('review-first').onclick = () => this.goTo(0);
    $('review-back').onclick = () => this.goTo(this.cursor - 1);
    $('review-forward').onclick = () => this.goTo(this.cursor + 1);
    $('review-last').onclick = () => this.goTo(this.game ? this.game.moves.length : 0);
  },

  enter() {
    if (this.game) this.goTo(this.cursor, true);
    else board.show(startView, {});
  },

  async run() {
    const pgn = $('review-input').value.trim();
    if (!pgn) {
      say('Paste a game in PGN, or choose a file.', 'error');
      return;
    }
    $('review-status').textContent = 'Reviewing… (the engine searches every position)';
    $('review-go').disabled = true;
    try {
      const answer = await api('POST', '/api/review', { pgn, depth: Number($('review-depth').value) || 10 });
      const game = answer.games && answer.games[0];
      if (!game) throw new ApiError('no game could be read in that PGN', 400, null);
      this.game = game;
      this.views = new Map();
      $('review-status').textContent = '';
      $('review-out').hidden = false;
      $('review-headline').textContent = game.headline || '';
      this.renderAccuracy();
      this.renderGraph();
      await this.goTo(game.moves.length, true);
    } catch (e) {
      $('review-status').textContent = '';
      say(e.message, 'error');
    } finally {
      $('review-go').disabled = false;
    }
  },

  renderAccuracy() {
    const box = $('review-accuracy');
    box.replaceChildren();
    for (const side of ['white', 'black']) {
      const summary = this.game.summary[side];
      const item = document.createElement('div');
      item.className = `side ${side}`;
      const accuracy = summary.accuracy === null || summary.accuracy === undefined ? '–' : `${summary.accuracy.toFixed(1)}%`;
      const name = (this.game.tags && this.game.tags[colourName(side)]) || colourName(side);
      const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
      const marks = [
        count(summary.inaccuracies, 'inaccuracy', 'inaccuracies'),
        count(summary.mistakes, 'mistake', 'mistakes'),
        count(summary.blunders, 'blunder', 'blunders'),
      ].join(', ');
      item.textContent = `${name}: accuracy ${accuracy} · ${marks}`;
      box.appendChild(item);
    }
  },

  /** The graph of White's winning chances after each move, drawn here so that a click can
   * go to the move under it. */
  renderGraph() {
    const moves = this.game.moves;
    const width = 600;
    const height = 120;
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', "White's winning chances after each move; click to go to a move");
    const x = (i) => (moves.length <= 1 ? width / 2 : (i / moves.length) * width);
    const start = this.game.win_start === undefined ? 50 : this.game.win_start;
    const chance = (mv) => (mv.win_after === null || mv.win_after === undefined ? 50 : mv.win_after);
    const y = (w) => height - (w / 100) * height;
    let area = `M0,${height} L0,${y(start)}`;
    moves.forEach((mv, i) => {
      area += ` L${x(i + 1)},${y(chance(mv))}`;
    });
    area += ` L${width},${height} Z`;
    const back = document.createElementNS(ns, 'rect');
    Object.entries({ x: 0, y: 0, width, height, class: 'graph-black' }).forEach(([k, v]) => back.setAttribute(k, v));
    const path = document.createElementNS(ns, 'path');
    path.setAttribute('d', area);
    path.setAttribute('class', 'graph-white');
    const middle = document.createElementNS(ns, 'line');
    Object.entries({ x1: 0, x2: width, y1: height / 2, y2: height / 2, class: 'graph-middle' }).forEach(([k, v]) =>
      middle.setAttribute(k, v),
    );
    svg.append(back, path, middle);
    moves.forEach((mv, i) => {
      const mark = MARKS[mv.mark];
      if (!mark || !['inaccuracy', 'mistake', 'blunder'].includes(mark.kind)) return;
      const dot = document.createElementNS(ns, 'circle');
      Object.entries({ cx: x(i + 1), cy: y(chance(mv)), r: 4, class: `dot ${mark.kind}` }).forEach(([k, v]) => dot.setAttribute(k, v));
      svg.appendChild(dot);
    });
    this.cursorLine = document.createElementNS(ns, 'line');
    this.cursorLine.setAttribute('class', 'graph-cursor');
    this.cursorLine.setAttribute('y1', 0);
    this.cursorLine.setAttribute('y2', height);
    svg.appendChild(this.cursorLine);
    svg.onclick = (event) => {
      const box = svg.getBoundingClientRect();
      const fraction = (event.clientX - box.left) / box.width;
      this.goTo(Math.round(fraction * moves.length));
    };
    $('review-graph').replaceChildren(svg);
    this.graphX = x;
  },

  async goTo(cursor, force = false) {
    if (!this.game) return;
    cursor = Math.max(0, Math.min(this.game.moves.length, cursor));
    if (cursor === this.cursor && !force) return;
    this.cursor = cursor;
    const moves = this.game.moves.slice(0, cursor).map((mv) => mv.uci);
    try {
      let view = this.views.get(cursor);
      if (!view) {
        view = await position(this.game.start_fen, moves, { play_on: true });
        this.views.set(cursor, view);
      }
      if (this.cursor !== cursor || currentTab !== 'review') return;
      const current = this.game.moves[cursor - 1];
      const next = this.game.moves[cursor];
      const shapes = [];
      // The engine's choice where the move played was not it.
      if (next && !next.engine_choice && next.line && next.line.length) {
        const best = view.legal.find((mv) => mv.san === next.best);
        if (best) shapes.push({ orig: best.from, dest: best.to, brush: 'green' });
      }
      board.show(view, { shapes });
      this.renderCurrent(current);
      const marks = this.game.moves.map((mv) => MARKS[mv.mark] || null);
      renderMoves($('review-moves'), this.game.moves.map((mv) => mv.san), cursor, (n) => this.goTo(n), this.game.start_fen, marks);
      if (this.cursorLine) {
        const at = this.graphX(cursor);
        this.cursorLine.setAttribute('x1', at);
        this.cursorLine.setAttribute('x2', at);
      }
      $('review-out').dataset.ply = String(cursor);
    } catch (e) {
      say(e.message, 'error');
    }
  },

  renderCurrent(mv) {
    const box = $('review-current');
    box.replaceChildren();
    if (!mv) {
      box.textContent = 'The start position. Click a move, or the graph.';
      return;
    }
    const title = document.createElement('div');
    const mark = MARKS[mv.mark];
    title.className = mark ? mark.kind : '';
    const number = `${mv.number}${mv.side === 'white' ? '.' : '...'}`;
    title.textContent = `${number} ${mv.san}${mark ? mark.glyph : ''}${mv.mark ? ` — ${mv.mark}` : ''}${mv.book ? ' (book)' : ''}`;
    box.appendChild(title);
    const evalLine = document.createElement('div');
    evalLine.className = 'small';
    const mated = mv.eval_after && mv.eval_after.mate === 0;
    evalLine.textContent = `${mated ? 'Checkmate' : `Evaluation ${scoreText(mv.eval_after)}`}${mv.accuracy === null || mv.accuracy === undefined ? '' : ` · accuracy ${mv.accuracy.toFixed(0)}%`}`;
    box.appendChild(evalLine);
    if (!mv.engine_choice && mv.best) {
      const better = document.createElement('div');
      better.textContent = `Best was ${mv.best}: ${(mv.line || []).join(' ')}`;
      box.appendChild(better);
    }
  },
};

// ---------------------------------------------------------------------------------------
// Account and games

const account = {
  user: null,
  available: false,
  ready: null,

  init() {
    this.ready = this.refresh();
    $('account-form').onsubmit = (event) => {
      event.preventDefault();
      this.sign('login');
    };
    $('account-register').onclick = () => this.sign('register');
    $('account-logout').onclick = () => this.logout();
  },

  async refresh() {
    try {
      const answer = await api('GET', '/api/account');
      csrf = answer.csrf;
      this.user = answer.user;
      this.available = true;
    } catch {
      this.available = false;
    }
    play.serverGames = this.available;
    $('play-opponent').querySelector('option[value=friend]').disabled = !this.available;
    $('join-form').hidden = !this.available || Boolean(play.state);
    this.render();
  },

  render() {
    const tab = $('account-tab');
    tab.textContent = this.user ? this.user.name : 'Sign in';
    $('account-in').hidden = !this.user;
    $('account-form').hidden = Boolean(this.user) || !this.available;
    $('account-name').textContent = this.user ? this.user.name : '';
    $('account-status').textContent = this.available ? '' : 'This server keeps no accounts.';
    document.body.dataset.user = this.user ? this.user.name : '';
  },

  async sign(kind) {
    const name = $('account-user').value.trim();
    const password = $('account-password').value;
    try {
      await api('POST', `/api/account/${kind}`, { name, password });
      $('account-password').value = '';
      await this.refresh();
      say(kind === 'register' ? `Welcome, ${this.user ? this.user.name : name}.` : `Signed in as ${this.user ? this.user.name : name}.`);
      if (tabs.games) showTab('games');
    } catch (e) {
      say(e.message, 'error');
    }
  },

  async logout() {
    try {
      await api('POST', '/api/account/logout', {});
      await this.refresh();
      play.newGame();
      say('Signed out.');
    } catch (e) {
      say(e.message, 'error');
    }
  },
};

const games = {
  async enter() {
    board.show(startView, {});
    renderPlayers();
    const list = $('games-list');
    const status = $('games-status');
    list.replaceChildren();
    if (!account.available) {
      status.textContent = 'This server keeps no games.';
      return;
    }
    if (!account.user) {
      status.textContent = 'Sign in to keep your games and find them here.';
      return;
    }
    try {
      const answer = await api('GET', '/api/games');
      status.textContent = answer.games.length ? '' : 'No games yet.';
      for (const game of answer.games) list.appendChild(this.item(game));
    } catch (e) {
      status.textContent = e.message;
    }
  },

  item(game) {
    const item = document.createElement('li');
    const white = (game.white && game.white.name) || '?';
    const black = (game.black && game.black.name) || '?';
    const label = document.createElement('span');
    const when = game.updated ? new Date(game.updated).toLocaleString() : '';
    const result = !game.result || game.result === '*' ? 'in progress' : game.result;
    const moves = game.plies === undefined ? '' : ` · ${Math.ceil(game.plies / 2)} moves`;
    label.textContent = `${white} – ${black} · ${result}${moves} · ${when}`;
    const resume = document.createElement('button');
    resume.textContent = game.result === '*' ? 'Resume' : 'Open';
    resume.onclick = () => play.resume(game.id);
    const pgn = document.createElement('a');
    pgn.textContent = 'PGN';
    pgn.href = `/api/games/${encodeURIComponent(game.id)}/pgn${token ? `?token=${encodeURIComponent(token)}` : ''}`;
    pgn.download = `${game.id}.pgn`;
    const remove = document.createElement('button');
    remove.textContent = 'Delete';
    remove.onclick = async () => {
      if (!confirm('Delete this game?')) return;
      try {
        await api('DELETE', `/api/games/${encodeURIComponent(game.id)}`);
        item.remove();
      } catch (e) {
        say(e.message, 'error');
      }
    };
    item.append(label, ' ', resume, ' ', pgn, ' ', remove);
    item.dataset.id = game.id;
    return item;
  },
};

// ---------------------------------------------------------------------------------------
// Start

let startView = null;

async function main() {
  board.init();
  play.init();
  analyse.init();
  review.init();
  account.init();
  Object.assign(tabs, { play, analyse, review, games, account: { enter: () => board.show(startView, {}) } });
  for (const button of document.querySelectorAll('#tabs button')) button.onclick = () => showTab(button.dataset.tab);
  try {
    startView = await position('startpos', []);
  } catch (e) {
    say(e.message, 'error');
    return;
  }
  await account.ready;
  const path = location.pathname;
  const join = /^\/join\/([^/]+)$/.exec(path);
  const watch = /^\/watch\/([^/]+)$/.exec(path);
  showTab('play');
  const current = sessionStorage.getItem('sentinel-game');
  if (join) await play.join(decodeURIComponent(join[1]));
  else if (watch) await play.watch(decodeURIComponent(watch[1]));
  else if (current && account.available) {
    await play.resume(current);
    if (!play.game) {
      sessionStorage.removeItem('sentinel-game');
      say('');
    }
  }
  document.body.dataset.ready = 'true';
}

main();
