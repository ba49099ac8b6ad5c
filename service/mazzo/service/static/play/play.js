// The web table: one person (seat 0) against the bots, through the REST API.
//
// Every call follows the TypeScript client's contract (clients/typescript):
// the bots are computer seats, which the server plays itself, so the page
// holds seat 0's credential and nothing else, and works against a server that
// requires seat credentials. NewGame asks eventsSeat 0 and every other call
// carries seat 0's credential, so the page never receives a card seat 0 may
// not see; each Play answers the person's move and the bots' after it, and
// carries an idempotency key, so a retried Play deals alike. The page exposes
// its progress on <body>: data-phase (loading, setup, your-turn, choosing,
// bots, over, error) and data-settled ("true" once the last events are shown).
// `?fast=1` shows every event without animation time.

import MESSAGES from "./messages.js";

const HUMAN = 0;
const params = new URLSearchParams(location.search);
const SPEED = params.get("fast") === "1" ? 0 : 1;
const LEVELS = [N_("random"), N_("greedy"), N_("intermediate"), N_("expert")];
// The searching levels' thinking time per move (`?budget=` in milliseconds).
const SEARCHING = new Set(["intermediate", "expert"]);
const BUDGET_MS = Number(params.get("budget") ?? 300);
const $ = (id) => document.getElementById(id);
// Fast: no CSS animation or transition either (play.css).
document.documentElement.classList.toggle("fast", SPEED === 0);

// ---------------------------------------------------------------- the language

// The languages of the page; the server is asked for the same (Accept-Language),
// which its messages and card names follow. The default: `?lang=`, else the
// first of the browser's languages the page speaks, else English.
const LANGUAGES = { it: "Italiano", en: "English", es: "Español", fr: "Français", ru: "Русский" };
let language = chooseLanguage([params.get("lang"), ...(navigator.languages ?? [])]);

function chooseLanguage(tags) {
  for (const tag of tags) {
    const primary = tag?.toLowerCase().split("-")[0];
    if (primary && primary in LANGUAGES) return primary;
  }
  return "en";
}

/** The page's text for an English key in the chosen language, with its {values};
 * ``count`` picks a plural form (Intl.PluralRules). */
function t(key, values = {}, count = undefined) {
  let text = MESSAGES[language]?.[key] ?? MESSAGES.en[key] ?? key;
  if (typeof text === "object") text = text[new Intl.PluralRules(language).select(count)] ?? text.other;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** Marks a key that t() translates later (the catalog test reads these too). */
function N_(key) {
  return key;
}

function translatePage() {
  document.documentElement.lang = language;
  document.body.dataset.lang = language;
  document.title = t("Mazzo · play against the computer");
  for (const element of document.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  // The page's own markup (a <b>), from its own table: never text from elsewhere.
  for (const element of document.querySelectorAll("[data-i18n-html]")) element.innerHTML = t(element.dataset.i18nHtml);
  for (const element of document.querySelectorAll("[data-i18n-label]")) {
    element.setAttribute("aria-label", t(element.dataset.i18nLabel));
  }
  for (const element of document.querySelectorAll("[data-i18n-title]")) element.title = t(element.dataset.i18nTitle);
}

// ---------------------------------------------------------------- the API

class ApiError extends Error {
  constructor(status, envelope) {
    const error = envelope?.error ?? {};
    const info = (error.details ?? []).find((d) => (d["@type"] ?? "").endsWith("ErrorInfo"));
    super(`${error.status ?? status} ${info?.reason ?? ""}: ${error.message ?? "no answer"}`);
    this.reason = info?.reason ?? "";
  }
}

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: {
      "accept-language": language,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => undefined);
  if (!response.ok || json === undefined) throw new ApiError(response.status, json);
  return json;
}

const api = {
  catalog: () => call("GET", "/v1/catalog"),
  newGame: (request) => call("POST", "/v1/games", request),
  play: (state, move, options) => call("POST", "/v1/games:play", { state, move, ...options }),
  legalMoves: (state, seatCredential) =>
    call("POST", "/v1/games:legalMoves", { state, seatCredential }),
  view: (state, seat, seatCredential) =>
    call("POST", "/v1/games:view", { state, seat, seatCredential }),
  advance: (state, options) => call("POST", "/v1/games:advance", { state, ...options }),
};

/** A fresh idempotency key for one move: 16 random bytes, base64. */
function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

// ---------------------------------------------------------------- cards

// The French face's suit marks, by suit letter (coins, cups, swords, batons).
const FRENCH_PIPS = { D: "♦", C: "♥", S: "♠", B: "♣" };

// Italian and Spanish suit marks, drawn (no font or image needed).
const SUIT_SVG = {
  D: '<circle cx="12" cy="12" r="9" fill="#d9a400" stroke="#7a5a00" stroke-width="1.5"/><circle cx="12" cy="12" r="4" fill="none" stroke="#7a5a00" stroke-width="1.5"/>',
  C: '<path d="M5 4h14c0 6-3 9-6 10v3h3v3H8v-3h3v-3C8 13 5 10 5 4z" fill="#c62828"/>',
  S: '<path d="M12 2l2.2 3v11h-4.4V5z" fill="#1565c0"/><rect x="7" y="16" width="10" height="2" fill="#37474f"/><rect x="11" y="18" width="2" height="4" fill="#37474f"/>',
  B: '<path d="M10 22l-1-9c-1.5-1-2-3-1.2-5C8.6 5 10 2.5 12.5 2.2c2.6-.3 4 2.3 3.6 4.6-.3 2-1.3 3.4-2.4 4.3L14 22z" fill="#8d5a2b" stroke="#4e2f12" stroke-width="1"/><path d="M8.2 9.5l-2 .8M15.6 8.5l2.2-.4M14.2 14l2 .6" stroke="#2e7d32" stroke-width="1.8" stroke-linecap="round"/>',
};

const game = {
  catalog: null, // GetCatalogResponse
  faces: new Map(), // face name -> Map(code -> { name, index, accusative })
  suits: new Map(), // face name -> Map(suit letter -> name)
  face: "FACE_ITALIAN",
  players: 2,
  levels: [],
  state: "",
  credential: "", // seat 0's: the only one the page holds
  status: null,
  view: null,
  sheet: [], // { hand, sides: [SideScore] }
  sides: 2,
};

function cardName(code) {
  return game.faces.get(game.face)?.get(code)?.name ?? code;
}

/** A card as the object of a verb or a preposition ("You play {card}."): the catalog's
 * accusative, declined where the language declines ("тройку мечей"), with the article
 * where it sets one ("il tre di spade"). */
function cardObject(code) {
  return game.faces.get(game.face)?.get(code)?.accusative || cardName(code);
}

function suitName(suit) {
  return game.suits.get(game.face)?.get(suit) ?? suit;
}

function cardIndex(code) {
  return game.faces.get(game.face)?.get(code)?.index ?? code.slice(0, -1);
}

/** A face-up card: its rank name in the chosen face and its suit, as elements. */
function cardElement(code) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = "card";
  element.dataset.card = code;
  const suit = code.slice(-1);
  element.dataset.suit = suit;
  element.title = cardName(code);
  element.setAttribute("aria-label", cardName(code));
  const mark =
    game.face === "FACE_FRENCH"
      ? `<span class="pip">${FRENCH_PIPS[suit]}</span>`
      : `<svg class="pip" viewBox="0 0 24 24" aria-hidden="true">${SUIT_SVG[suit]}</svg>`;
  const index = cardIndex(code);
  element.innerHTML = `<span class="index">${index}</span>${mark}<span class="index bottom">${index}</span>`;
  element.classList.add(game.face === "FACE_FRENCH" ? "french" : "latin");
  return element;
}

function backElement() {
  const element = document.createElement("span");
  element.className = "card back";
  return element;
}

// ---------------------------------------------------------------- timing

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms * SPEED));

function setPhase(phase) {
  document.body.dataset.phase = phase;
}

function settle(settled) {
  document.body.dataset.settled = String(settled);
}

/** Moves a copy of `card` from `from`'s box to `to`'s, then removes the copy. */
async function fly(code, from, to, faceDown = false) {
  if (!from || !to || SPEED === 0) return;
  const start = from.getBoundingClientRect();
  const end = to.getBoundingClientRect();
  const ghost = faceDown ? backElement() : cardElement(code);
  ghost.classList.add("flying");
  ghost.style.left = `${start.left}px`;
  ghost.style.top = `${start.top}px`;
  document.body.append(ghost);
  const dx = end.left + end.width / 2 - (start.left + ghost.offsetWidth / 2);
  const dy = end.top + end.height / 2 - (start.top + ghost.offsetHeight / 2);
  const animation = ghost.animate(
    [{ transform: "translate(0, 0)" }, { transform: `translate(${dx}px, ${dy}px)` }],
    { duration: 380, easing: "ease-in-out" },
  );
  await animation.finished.catch(() => {});
  ghost.remove();
}

async function banner(text, ms = 900) {
  const box = $("banner");
  box.textContent = text;
  box.classList.add("shown");
  await wait(ms);
  box.classList.remove("shown");
}

/** ``text`` with each sentence begun by a capital letter: a value a template puts
 * first ("seat 1 (greedy) plays …") is written in lower case, as it is mid-sentence. */
function sentence(text) {
  return text.replace(/(^|[.!?]\s+)(\p{Ll})/gu, (whole, before, letter) => before + letter.toLocaleUpperCase(language));
}

function log(text) {
  const item = document.createElement("li");
  item.textContent = sentence(text);
  $("log").prepend(item);
}

// ---------------------------------------------------------------- seats and sides

/** A seat as a heading names it: "Seat 1 (greedy)". */
function seatName(seat) {
  return seat === HUMAN ? t("You") : t("Seat {seat} ({level})", { seat, level: t(game.levels[seat]) });
}

/** A seat as a sentence names it, in lower case: "seat 1 (greedy)" (sentence()
 * capitalises it where it begins one). */
function seatWord(seat) {
  return seat === HUMAN ? t("you") : t("seat {seat} ({level})", { seat, level: t(game.levels[seat]) });
}

function sideOf(seat) {
  return game.sides === game.players ? seat : seat % game.sides;
}

/** Whether a side is the person alone (a line then says "you take", not "Seat 1 takes"). */
function isYou(side) {
  return game.sides === game.players && side === HUMAN;
}

/** A side as a heading names it: "Your side", "Seat 1". */
function sideName(side) {
  if (game.sides === game.players) return side === HUMAN ? t("You") : t("Seat {seat}", { seat: side });
  return side === sideOf(HUMAN) ? t("Your side") : t("Their side");
}

/** A side as a sentence names it, in lower case: "your side", "seat 1". */
function sideWord(side) {
  if (game.sides === game.players) return side === HUMAN ? t("you") : t("seat {seat}", { seat: side });
  return side === sideOf(HUMAN) ? t("your side") : t("their side");
}

function pileBox(side) {
  return side === sideOf(HUMAN) ? $("my-pile") : document.querySelector(`[data-side="${side}"] .pile`);
}

function seatBox(seat) {
  return seat === HUMAN ? $("hand") : document.querySelector(`[data-seat="${seat}"] .cards`);
}

function centre() {
  return $("table");
}

// ---------------------------------------------------------------- the events

const narrate = {
  async deal(e) {
    await banner(t("Hand {number}", { number: e.handNumber }), 600);
    const values = { number: e.handNumber, seat: seatWord(e.dealer), table: tableText(e.table) };
    log(t(e.dealer === HUMAN ? N_("Hand {number}: you deal{table}.") : N_("Hand {number}: {seat} deals{table}."), values));
  },
  async cardsDealt(e) {
    log(t(e.seat === HUMAN ? N_("You are dealt {cards}.") : N_("{seat} is dealt {cards}."), { seat: seatWord(e.seat), cards: objects(e.cards) }));
  },
  async redeal(e) {
    await banner(t("Redeal"), 600);
    log(t(e.dealer === HUMAN ? N_("Redeal by you{table}.") : N_("Redeal by {seat}{table}."), { seat: seatWord(e.dealer), table: tableText(e.table) }));
  },
  async cardPlayed(e) {
    // The card leaves the seat's hand: face up if the page knew it, else one of its backs.
    const hand = seatBox(e.seat);
    const source = hand?.querySelector(`[data-card="${e.card}"]`) ?? hand?.querySelector(".back");
    const placed = cardElement(e.card);
    placed.classList.add("just-played");
    placed.style.visibility = "hidden";
    centre().append(placed);
    await fly(e.card, source ?? hand, placed);
    placed.style.visibility = "";
    source?.remove();
    log(t(e.seat === HUMAN ? N_("You play {card}.") : N_("{seat} plays {card}."), { seat: seatWord(e.seat), card: cardObject(e.card) }));
    await wait(250);
  },
  async capture(e) {
    const taken = [e.card, ...e.taken];
    const shown = taken.map((code) => centre().querySelector(`[data-card="${code}"]`));
    shown.forEach((element) => element?.classList.add("taken"));
    if (e.sweep) await banner(t("Scopa!"), 900);
    else await wait(450);
    await Promise.all(taken.map((code, i) => fly(code, shown[i], pileBox(e.side))));
    shown.forEach((element) => element?.remove());
    const line = e.seat === HUMAN
      ? (e.sweep ? N_("You take {cards} with {card}: a sweep (scopa)!") : N_("You take {cards} with {card}."))
      : (e.sweep ? N_("{seat} takes {cards} with {card}: a sweep (scopa)!") : N_("{seat} takes {cards} with {card}."));
    log(t(line, { seat: seatWord(e.seat), cards: objects(e.taken), card: cardObject(e.card) }));
  },
  async leftoversTaken(e) {
    const line = isYou(e.side) ? N_("You take the last cards: {cards}.") : N_("{side} takes the last cards: {cards}.");
    if (e.cards.length) log(t(line, { side: sideWord(e.side), cards: names(e.cards) }));
    await flyAll(e.cards, pileBox(e.side));
  },
  async firstTableTaken(e) {
    const line = isYou(e.side)
      ? (e.sweeps ? N_("You take the first table ({cards}), sweeps: {sweeps}.") : N_("You take the first table ({cards})."))
      : (e.sweeps ? N_("{side} takes the first table ({cards}), sweeps: {sweeps}.") : N_("{side} takes the first table ({cards})."));
    log(t(line, { side: sideWord(e.side), cards: names(e.cards), sweeps: e.sweeps }));
    await flyAll(e.cards, pileBox(e.side));
  },
  async declaration(e) {
    await banner(`${seatName(e.seat)}: ${e.kind}`, 900);
    const line = e.seat === HUMAN ? N_("You declare {kind} ({cards}), {points} points.") : N_("{seat} declares {kind} ({cards}), {points} points.");
    log(t(line, { seat: seatWord(e.seat), kind: e.kind, cards: names(e.cards), points: e.points }));
  },
  async trickWon(e) {
    await wait(500);
    await flyAll(e.cards, pileBox(e.side));
    log(t(e.seat === HUMAN ? N_("You win the trick: {cards}.") : N_("{seat} wins the trick: {cards}."), { seat: seatWord(e.seat), cards: names(e.cards) }));
  },
  async cardDrawn(e) {
    await fly(e.card, $("stock"), seatBox(e.seat), false);
    log(t(e.seat === HUMAN ? N_("You draw {card}.") : N_("{seat} draws {card}."), { seat: seatWord(e.seat), card: cardObject(e.card) }));
  },
  async trumpTurnedUp(e) {
    log(turnedUp(e.card));
    await wait(250);
  },
  async napoletanaDeclared(e) {
    await banner(t("{seat} declares a napoletana", { seat: seatName(e.seat) }), 900);
    const line = e.seat === HUMAN ? N_("You declare a napoletana ({cards}), {points} points.") : N_("{seat} declares a napoletana ({cards}), {points} points.");
    log(t(line, { seat: seatWord(e.seat), cards: names(e.cards), points: e.points }));
  },
  async handScored(e) {
    game.sheet.push(e);
    renderSheet(e.scores);
    const totals = (name) => e.sides.map((s) => `${name(s.side)} ${s.total}`).join(", ");
    log(t("Hand {number} scored: {totals}.", { number: e.handNumber, totals: totals(sideWord) }));
    await banner(`${t("Hand {number}", { number: e.handNumber })}: ${totals(sideName)}`, 1600);
  },
  async gameOver(e) {
    const line = isYou(e.winningSide) ? N_("Game over: you win ({scores}).") : N_("Game over: {side} wins ({scores}).");
    log(t(line, { side: sideWord(e.winningSide), scores: e.scores.join(" – ") }));
  },
};

async function flyAll(codes, to) {
  const shown = codes.map((code) => centre().querySelector(`[data-card="${code}"]`));
  await Promise.all(codes.map((code, i) => fly(code, shown[i], to)));
  shown.forEach((element) => element?.remove());
}

function names(codes) {
  return codes.map(cardName).join(", ");
}

function objects(codes) {
  return codes.map(cardObject).join(", ");
}

/** "The three of swords is turned up: trumps are swords." */
function turnedUp(code) {
  return sentence(t("{card} is turned up: trumps are {suit}.", { card: cardObject(code), suit: suitName(code.slice(-1)) }));
}

function tableText(table) {
  return table?.length ? t("; on the table {cards}", { cards: names(table) }) : "";
}

async function show(events) {
  settle(false);
  for (const event of events) {
    const [kind, body] = Object.entries(event).find(([key]) => key !== "visibleTo") ?? [];
    if (kind && narrate[kind]) await narrate[kind](body);
  }
}

// ---------------------------------------------------------------- rendering the view

function render() {
  const view = game.view;
  const status = view.status;
  document.body.dataset.gameId = status.gameId;
  document.body.dataset.ply = String(status.ply);
  renderOpponents(view);
  // The game's own part of the view, named as the game: a table, or a trick.
  const own = view[status.game] ?? {};
  const centreCards = own.table ?? own.trick ?? [];
  const table = $("table");
  table.replaceChildren(...centreCards.map(cardElement));
  table.classList.toggle("trick", !own.table);
  renderDeck(view.stockSize, own.trumpCard);
  const before = new Set([...$("hand").children].map((c) => c.dataset.card));
  $("hand").style.setProperty("--hand-size", String(view.hand.length));
  $("hand").replaceChildren(
    ...view.hand.map((code) => {
      const element = cardElement(code);
      if (!before.has(code)) element.classList.add("appear");
      return element;
    }),
  );
  $("my-pile").textContent = pileText(view.piles, sideOf(HUMAN));
  renderStatus(status);
}

/** The stock, face down with its count, and Briscola's turn-up: a card under the
 * stock, turned crosswise, as the game is laid on a table. */
function renderDeck(stockSize, trumpCard) {
  const stock = $("stock");
  stock.textContent = stockSize ? String(stockSize) : "";
  const deck = $("deck");
  deck.hidden = !stockSize;
  const shown = [stock];
  if (trumpCard) {
    const turnUp = cardElement(trumpCard);
    turnUp.id = "turn-up";
    turnUp.classList.add("turn-up");
    turnUp.disabled = true;
    turnUp.title = turnedUp(trumpCard);
    turnUp.setAttribute("aria-label", turnUp.title);
    shown.unshift(turnUp);
  }
  deck.replaceChildren(...shown);
  deck.classList.toggle("with-turn-up", Boolean(trumpCard));
}

function renderOpponents(view) {
  const boxes = [];
  for (let seat = 0; seat < game.players; seat++) {
    if (seat === HUMAN) continue;
    const box = document.createElement("div");
    box.className = "seat";
    box.dataset.seat = String(seat);
    box.dataset.side = String(sideOf(seat));
    if (view.status.seatToPlay === seat) box.classList.add("to-play");
    const known = view.known.find((k) => k.seat === seat)?.cards ?? [];
    const cards = document.createElement("div");
    cards.className = "cards small";
    cards.append(...known.map(cardElement));
    for (let i = known.length; i < view.handSizes[seat]; i++) cards.append(backElement());
    const head = document.createElement("div");
    head.className = "seat-head";
    head.innerHTML = `<span class="seat-name"></span> <span class="pile"></span>`;
    head.querySelector(".seat-name").textContent = seatName(seat);
    const side = sideOf(seat);
    head.querySelector(".pile").textContent =
      side === sideOf(HUMAN) ? t("partner") : pileText(view.piles, side);
    box.append(head, cards);
    boxes.push(box);
  }
  $("opponents").replaceChildren(...boxes);
  $("opponents").dataset.count = String(boxes.length);
}

function pileText(piles, side) {
  const pile = piles.find((p) => p.side === side);
  if (!pile) return "";
  const count = pile.cards.length;
  const sweeps = pile.sweeps ? ` · ${t("{sweeps} sweep", { sweeps: pile.sweeps }, pile.sweeps)}` : "";
  return `${t("{count} taken", { count }, count)}${sweeps}`;
}

function renderStatus(status) {
  const scores = status.scores.map((score, side) => `${sideName(side)} ${score}`).join(" · ");
  let text;
  if (status.gameOver) {
    const line = isYou(status.winningSide) ? N_("Game over. You won. {scores}") : N_("Game over. {side} won. {scores}");
    text = t(line, { side: sideWord(status.winningSide), scores });
  } else if (status.seatToPlay === HUMAN) {
    text = t("Your turn. {scores} (to {target})", { scores, target: status.target });
  } else {
    const values = { seat: seatWord(status.seatToPlay), scores, target: status.target };
    text = t("{seat} is thinking… {scores} (to {target})", values);
  }
  $("status").textContent = sentence(text);
}

// ---------------------------------------------------------------- the score sheet

// The words of the games' score fields, as detail() writes them: marked here for the
// translations (tests/web/test_play_i18n.py checks them against the API's messages).
const SCORE_WORDS = [
  N_("cards"), N_("denari"), N_("primiera"), N_("cards point"), N_("denari point"),
  N_("settebello point"), N_("primiera point"), N_("sweeps"), N_("napola"), N_("re bello point"),
  N_("grande"), N_("piccola"), N_("declarations"), N_("thirds"), N_("card points"),
  N_("last trick point"), N_("napoletana"),
];

// A side's score has its total and one message named after the game: every
// field of it that is not zero, named in words ("settebelloPoint": "settebello point"),
// in the chosen language.
function detail(side) {
  const [own] = Object.entries(side).filter(([key]) => key !== "side" && key !== "total");
  if (!own) return "";
  const words = (key) => key.replace(/([A-Z])/g, " $1").toLowerCase();
  const parts = Object.entries(own[1]).filter(([, value]) => value).map(([key, value]) => `${t(words(key))} ${value}`);
  return parts.join(", ") || t("nothing");
}

function renderSheet(scores) {
  const table = $("scores");
  const head = `<thead><tr><th>${t("Hand")}</th>${scores.map((_, side) => `<th>${sideName(side)}</th>`).join("")}</tr></thead>`;
  const rows = game.sheet
    .map((hand) => {
      const cells = scores
        .map((_, side) => {
          const score = hand.sides.find((s) => s.side === side);
          return `<td><b>${score?.total ?? 0}</b><small>${score ? detail(score) : ""}</small></td>`;
        })
        .join("");
      return `<tr><th>${hand.handNumber}</th>${cells}</tr>`;
    })
    .join("");
  const match = scores.map((score, side) => `<td data-side="${side}">${score}</td>`).join("");
  table.innerHTML = `${head}<tbody>${rows}</tbody><tfoot><tr><th>${t("Match")}</th>${match}</tr></tfoot>`;
  table.dataset.scores = scores.join(",");
  $("sheet").hidden = false;
}

// ---------------------------------------------------------------- playing

/** Refreshes the page from seat 0's view of the new state. */
async function refresh() {
  game.view = (await api.view(game.state, HUMAN, game.credential)).view;
  game.status = game.view.status;
  render();
}

async function apply(answer) {
  game.state = answer.state;
  await show(answer.events);
  await refresh();
}

/** Waits for the person to choose a move by clicking: a card, then a choice when it has several. */
function chooseMove(moves) {
  return new Promise((resolve) => {
    const hand = $("hand");
    const playable = new Set(moves.map((m) => m.card));
    for (const element of hand.children) {
      element.disabled = !playable.has(element.dataset.card);
      element.classList.toggle("playable", !element.disabled);
    }
    hand.onclick = (click) => {
      const element = click.target.closest(".card");
      if (!element || element.disabled) return;
      const options = moves.filter((m) => m.card === element.dataset.card);
      for (const other of hand.children) other.classList.toggle("chosen", other === element);
      if (options.length === 1) return done(options[0]);
      offerChoices(options, done);
    };
    const done = (move) => {
      // Synchronously: whoever waits for the next turn sees this one is taken.
      setPhase("playing");
      settle(false);
      hand.onclick = null;
      $("choices").hidden = true;
      for (const element of hand.children) element.disabled = true;
      resolve(move);
    };
    setPhase("your-turn");
    settle(true);
  });
}

/** The captures (and the lay, where taking is optional) of one card, as buttons. */
function offerChoices(options, done) {
  const box = $("choices");
  box.replaceChildren();
  for (const move of options) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "choice";
    if (move.lay) {
      button.textContent = t("Lay it on the table");
      button.dataset.lay = "true";
    } else {
      button.append(`${t("Take")} `);
      for (const code of move.take) button.append(cardElement(code));
    }
    button.addEventListener("click", () => done(move));
    // Pointing at a choice (or tabbing to it) shows the cards it takes.
    for (const shown of ["pointerenter", "focus"]) {
      button.addEventListener(shown, () => highlight(move.take ?? []));
    }
    for (const hidden of ["pointerleave", "blur"]) button.addEventListener(hidden, () => highlight([]));
    box.append(button);
  }
  box.hidden = false;
  setPhase("choosing");
}

function highlight(codes) {
  for (const element of $("table").children) {
    element.classList.toggle("taken", codes.includes(element.dataset.card));
  }
}

async function humanTurn() {
  const { moves } = await api.legalMoves(game.state, game.credential);
  const move = await chooseMove(moves);
  setPhase("bots");
  // One Play: the person's move, then the bots' up to the person's next turn,
  // answered with the events seat 0 may see only.
  const answer = await api.play(game.state, move, {
    seatCredential: game.credential,
    expectedPly: game.status.ply,
    idempotencyKey: idempotencyKey(),
  });
  await apply(answer);
}

async function playGame() {
  while (!game.status.gameOver) {
    if (game.status.seatToPlay === HUMAN) await humanTurn();
    else {
      // Never after NewGame or a Play (the server played the bots); kept for a
      // state that stops at a bot's turn all the same.
      setPhase("bots");
      await apply(await api.advance(game.state, { seatCredential: game.credential }));
    }
  }
  const won = game.status.winningSide;
  const mine = won === sideOf(HUMAN);
  const result = mine ? (game.sides === game.players ? N_("You win {scores}") : N_("Your side wins {scores}")) : N_("{side} wins {scores}");
  $("result-text").textContent = sentence(t(result, { side: sideWord(won), scores: game.status.scores.join(" – ") }));
  $("result").classList.toggle("lost", !mine);
  $("result").hidden = false;
  setPhase("over");
  document.body.dataset.finalScores = game.status.scores.join(",");
  document.body.dataset.state = game.state;
  document.body.dataset.seatCredential = game.credential;
  settle(true);
}

async function start(event) {
  event?.preventDefault();
  const info = selectedGame();
  game.players = Number($("players").value);
  game.face = $("face").value;
  game.levels = [...$("levels").querySelectorAll("select")].map((s) => s.value);
  game.levels.unshift("you");
  game.sheet = [];
  game.sides = game.players >= 4 ? 2 : game.players;
  const options = {};
  if (info.variants.length) options.variant = $("variant").value;
  if (info.options.some((o) => o.name === "face")) options.face = game.face;
  const target = Number($("target").value);
  if (target > 0) options.target = target;
  setPhase("bots");
  settle(false);
  $("board").hidden = false;
  $("welcome").hidden = true;
  $("log").replaceChildren();
  $("log-box").hidden = false;
  renderSheet(Array(game.sides).fill(0));
  $("result").hidden = true;
  delete document.body.dataset.finalScores;
  try {
    const computers = game.levels.slice(1).map((level, index) => ({
      seat: index + 1,
      level,
      budgetMs: SEARCHING.has(level) ? BUDGET_MS : 0,
    }));
    const answer = await api.newGame({
      players: game.players,
      eventsSeat: HUMAN,
      computers,
      [info.name]: options,
    });
    // Seat 0's credential only: the bots' are of no use to the page.
    game.credential = answer.seatCredentials.find((c) => c.seat === HUMAN).credential;
    game.state = answer.state;
    game.status = answer.status;
    game.view = null;
    $("hand").replaceChildren();
    $("table").replaceChildren();
    await show(answer.events);
    await refresh();
    await playGame();
  } catch (error) {
    $("status").textContent = t("Error: {message}", { message: error.message });
    setPhase("error");
    settle(true);
  }
}

// ---------------------------------------------------------------- the set-up form

function selectedGame() {
  return game.catalog.games.find((g) => g.name === $("game").value);
}

function variantTitle(info, name) {
  return info.variants.find((v) => v.name === name)?.title ?? name;
}

function fillOptions(select, entries, chosen) {
  select.replaceChildren(
    ...entries.map(([value, label]) => {
      const option = new Option(label, value);
      option.selected = String(value) === String(chosen);
      return option;
    }),
  );
}

function onGameChange() {
  const info = selectedGame();
  const variantLabel = $("variant").closest("label");
  variantLabel.hidden = info.variants.length === 0;
  fillOptions($("variant"), info.variants.map((v) => [v.name, variantTitle(info, v.name)]), params.get("variant") ?? info.variants[0]?.name);
  onVariantChange();
}

function onVariantChange() {
  const info = selectedGame();
  const variant = info.variants.find((v) => v.name === $("variant").value);
  const counts = variant?.playerCounts ?? info.playerCounts;
  const chosen = params.get("players") ?? variant?.defaultPlayers ?? counts[0];
  fillOptions($("players"), counts.map((n) => [n, `${n}`]), counts.includes(Number(chosen)) ? chosen : counts[0]);
  const target = info.options.find((o) => o.name === "target");
  $("target").value = params.get("target") ?? variant?.presets?.target ?? target?.defaultValue ?? "";
  const preset = variant?.presets?.face;
  if (preset && !params.get("face")) $("face").value = preset;
  onPlayersChange();
}

function onPlayersChange() {
  const players = Number($("players").value);
  const level = params.get("level") ?? "greedy";
  const selects = [];
  for (let seat = 1; seat < players; seat++) {
    const label = document.createElement("label");
    const name = document.createElement("span");
    name.textContent = t("Seat {seat}", { seat });
    const select = document.createElement("select");
    select.dataset.seat = String(seat);
    fillOptions(select, LEVELS.map((l) => [l, t(l)]), level);
    label.append(name, " ", select);
    selects.push(label);
  }
  $("levels").replaceChildren(...selects);
}

const FACE_TITLES = { FACE_ITALIAN: N_("Italian"), FACE_FRENCH: N_("French"), FACE_SPANISH: N_("Spanish") };

/** The catalog's card and suit names (in the chosen language) by face. */
async function readCatalog() {
  game.catalog = await api.catalog();
  for (const info of game.catalog.games) {
    for (const face of info.faces) {
      game.faces.set(face.name, new Map(face.cards.map((c) => [c.code, c])));
      game.suits.set(face.name, new Map(face.suits.map((s) => [s.code, s.name])));
    }
  }
}

function fillFaces(chosen) {
  fillOptions($("face"), [...game.faces.keys()].map((f) => [f, t(FACE_TITLES[f] ?? f)]), chosen);
}

/** Another language: the page's words, the card names (the catalog read again) and
 * what is shown, redrawn; a game in progress goes on. */
async function onLanguageChange() {
  language = $("lang").value;
  translatePage();
  await readCatalog();
  fillFaces($("face").value);
  for (const select of $("levels").querySelectorAll("select")) {
    for (const option of select.options) option.text = t(option.value);
    select.previousElementSibling.textContent = t("Seat {seat}", { seat: select.dataset.seat });
  }
  if (game.view) render();
  if (!$("sheet").hidden && game.sheet) renderSheet(game.status?.scores ?? Array(game.sides).fill(0));
}

async function init() {
  fillOptions($("lang"), Object.entries(LANGUAGES), language);
  translatePage();
  try {
    await readCatalog();
  } catch (error) {
    $("status").textContent = t("The catalog could not be read: {message}", { message: error.message });
    setPhase("error");
    return;
  }
  fillFaces(params.get("face") ?? "FACE_ITALIAN");
  $("lang").addEventListener("change", onLanguageChange);
  fillOptions($("game"), game.catalog.games.map((g) => [g.name, g.title]), params.get("game") ?? "scopa");
  $("game").addEventListener("change", onGameChange);
  $("variant").addEventListener("change", onVariantChange);
  $("players").addEventListener("change", onPlayersChange);
  $("setup").addEventListener("submit", start);
  $("again").addEventListener("click", start);
  onGameChange();
  setPhase("setup");
  settle(true);
}

init();
