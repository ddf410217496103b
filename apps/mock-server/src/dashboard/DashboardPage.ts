/**
 * The developer dashboard at `GET /` (CONTRACT.md "Also served"): one HTML page with its style and
 * script inline, nothing fetched from elsewhere. The page holds no data of its own; its script
 * reads everything from `/dev/` and `/dev/events`, with the developer token where one is required.
 * A Content-Security-Policy admits exactly this script and style (by hash) and connections to the
 * mock itself: even a text that slipped into the page as markup could not run or send anything.
 */
import { createHash } from "node:crypto"
import { escapeHtml } from "./Html.js"
import { dashboardMain } from "./DashboardScript.js"
import { opensslVerifyCommand } from "./VerifyCommand.js"

/** Rows of the request log the page keeps at most. */
export const MAX_LOG_ROWS = 200
/** Orders the page shows at most (the newest). */
export const MAX_ORDERS = 100

// The compiled functions' source text: plain JavaScript (the build erased the types).
const SCRIPT = `(${dashboardMain.toString()})({
  opensslVerifyCommand: ${opensslVerifyCommand.toString()},
  maxLogRows: ${MAX_LOG_ROWS},
  maxOrders: ${MAX_ORDERS},
  listLimit: 50
});`.replace(/<\/(script)/gi, "<\\/$1")

const STYLE = `
:root { color-scheme: light; --fg: #17181c; --muted: #667085; --line: #e4e7ec; --bg: #f6f7f9; --card: #fff;
  --ok: #067647; --ok-bg: #dcfae6; --bad: #b42318; --bad-bg: #fee4e2; --warn: #93370d; --warn-bg: #fef0c7;
  --info: #175cd3; --info-bg: #dbeafe; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
/* Ids, URLs, signatures and bodies are long unbroken strings: they wrap, the page never scrolls sideways. */
code, dd, td, .why, .error, h1, h2 { overflow-wrap: anywhere; min-width: 0; }
pre { margin: .25rem 0 .5rem; padding: .5rem .6rem; background: #f2f4f7; border: 1px solid var(--line); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 22rem; overflow-y: auto; }
pre.command { background: #101828; color: #e4e7ec; border-color: #101828; max-height: none; }
h2 { font-size: 15px; margin: 0 0 .6rem; display: flex; align-items: center; gap: .4rem; }
h4 { font-size: 12px; margin: .6rem 0 .1rem; color: var(--muted); font-weight: 600; text-transform: uppercase; letter-spacing: .04em; }
.top { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem;
  padding: .6rem 1rem; background: #101828; color: #fff; }
.top a { color: #c7d7fe; }
.top nav { margin-left: auto; display: flex; gap: .8rem; font-size: 13px; }
.env { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; padding: .1rem .45rem; border-radius: 99px; background: #344054; }
.live { font-size: 12px; display: inline-flex; align-items: center; gap: .35rem; }
.live::before { content: ""; width: .55rem; height: .55rem; border-radius: 50%; background: #f79009; }
.live[data-state="live"]::before { background: #17b26a; }
.live[data-state="locked"]::before { background: #f04438; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; padding: 1rem; max-width: 1400px; margin: 0 auto; }
@media (min-width: 900px) {
  .layout { grid-template-columns: minmax(0, 1.7fr) minmax(0, 1fr); align-items: start; }
}
.side { display: grid; gap: 1rem; align-content: start; min-width: 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: .8rem .9rem; min-width: 0; }
.order { margin-bottom: .75rem; }
.row { display: flex; flex-wrap: wrap; align-items: center; gap: .35rem .6rem; min-width: 0; }
.row.between { justify-content: space-between; }
.spacer { flex: 1; }
.amount { font-size: 16px; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem .8rem; margin: .5rem 0; }
dt { color: var(--muted); }
dd { margin: 0; }
.muted { color: var(--muted); }
.small { font-size: 12px; }
.badge { display: inline-block; font-size: 11.5px; font-weight: 600; padding: .05rem .45rem; border-radius: 99px; background: var(--info-bg); color: var(--info); white-space: nowrap; }
.badge.ok { background: var(--ok-bg); color: var(--ok); } .badge.bad { background: var(--bad-bg); color: var(--bad); }
.badge.warn { background: var(--warn-bg); color: var(--warn); } .badge.muted { background: #f2f4f7; color: var(--muted); }
button { font: inherit; font-weight: 600; padding: .4rem .9rem; border-radius: 7px; border: 1px solid #d0d5dd; background: #fff; color: var(--fg); cursor: pointer; }
button.small { font-size: 12.5px; padding: .25rem .7rem; }
button:hover { background: #f9fafb; } button[disabled] { opacity: .5; cursor: progress; }
button.pay { background: #067647; border-color: #067647; color: #fff; }
button.fail { background: #fff; border-color: #fda29b; color: var(--bad); }
button.expire { background: #fff; color: var(--warn); border-color: #fedf89; }
.actions { margin: .3rem 0 .2rem; }
.deliveries { border-top: 1px solid var(--line); margin-top: .5rem; padding-top: .5rem; display: grid; gap: .5rem; }
.delivery { display: grid; gap: .3rem; }
details.attempt { border: 1px solid var(--line); border-radius: 8px; padding: .35rem .6rem; background: #fcfcfd; }
details.attempt summary { cursor: pointer; display: flex; flex-wrap: wrap; align-items: center; gap: .25rem .6rem; }
.attempt-no { font-weight: 700; }
.kv { display: flex; flex-wrap: wrap; gap: .1rem .6rem; margin-top: .3rem; }
.error { color: var(--bad); }
.hint { color: var(--warn); }
.audit-checks { list-style: none; margin: .4rem 0 0; padding: 0; display: grid; gap: .35rem; }
.audit-checks li { border-top: 1px solid #eef0f3; padding-top: .3rem; }
.item { padding: .5rem 0; border-top: 1px solid var(--line); display: grid; gap: .3rem; }
.item:first-child { border-top: 0; padding-top: 0; }
.item summary { cursor: pointer; display: flex; gap: .5rem; align-items: center; }
code.block { display: block; }
.count { font-size: 12px; font-weight: 600; color: var(--muted); }
.log { list-style: none; margin: 0; padding: 0; }
.log li { padding: .35rem 0; border-top: 1px solid var(--line); display: grid; gap: .15rem; }
.log li:first-child { border-top: 0; }
.log .path { font-weight: 600; }
@media (min-width: 900px) {
  /* The side column stays in view while the orders scroll; its own content scrolls inside it. */
  .side { position: sticky; top: 3.2rem; max-height: calc(100vh - 4.2rem); overflow-y: auto; }
}
.notice { margin: 1rem 1rem 0; padding: .5rem .8rem; border-radius: 8px; background: var(--ok-bg); color: var(--ok); }
.notice.bad { background: var(--bad-bg); color: var(--bad); }
.token { margin: 1rem; border-color: #fda29b; }
.token form { display: flex; flex-wrap: wrap; gap: .5rem; }
.token input { flex: 1 1 12rem; min-width: 0; font: inherit; padding: .4rem .6rem; border: 1px solid #d0d5dd; border-radius: 7px; }
.empty { padding: 1rem 0; }
footer { padding: 0 1rem 1.5rem; text-align: center; }
footer button { font-weight: 400; }
`

const sha256 = (text: string): string => `'sha256-${createHash("sha256").update(text).digest("base64")}'`

/**
 * The policy the page is served with: its own script and style only, connections to the mock only.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  `script-src ${sha256(SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/**
 * The dashboard's HTML for a mock of `environment`: the only value the server writes into it.
 *
 * @example
 * ```ts
 * HttpServerResponse.html(dashboardPage("sandbox")).pipe(HttpServerResponse.setHeader("content-security-policy", DASHBOARD_CSP))
 * ```
 */
export const dashboardPage = (environment: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Payment Connect mock · ${escapeHtml(environment)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="top">
  <strong>Payment Connect mock</strong>
  <span class="env" data-testid="environment">${escapeHtml(environment)}</span>
  <span id="live" class="live" data-state="connecting" data-testid="live">connecting…</span>
  <nav><a href="docs">API reference</a><a href="openapi.json">OpenAPI</a></nav>
</header>
<noscript><p class="notice bad">The dashboard needs JavaScript. The same data is in the developer menu: <a href="docs">docs</a>.</p></noscript>
<div id="notice" class="notice" role="status" data-testid="notice" hidden></div>
<section id="token-panel" class="card token" data-testid="token-panel" hidden>
  <h2>Developer token</h2>
  <p id="token-reason" class="error" data-testid="token-reason"></p>
  <p class="muted">This mock is bound to a network address, so its developer menu needs the token it printed at start
  (or its <code>--dev-token</code>). The page keeps it in this tab only (sessionStorage) and sends it as
  <code>Authorization: Bearer</code>.</p>
  <form id="token-form">
    <input id="token-input" type="password" autocomplete="off" spellcheck="false" placeholder="developer token" aria-label="Developer token">
    <button type="submit">Use token</button>
  </form>
</section>
<main class="layout">
  <section aria-labelledby="orders-title">
    <h2 id="orders-title">Orders <span id="orders-count" class="count">0</span></h2>
    <div id="orders" data-testid="orders"></div>
  </section>
  <div class="side">
    <section class="card" aria-labelledby="keys-title">
      <div class="row between"><h2 id="keys-title">Platform keys</h2><button id="rotate" type="button" class="small" data-action="rotate">Rotate</button></div>
      <div id="platform-keys"></div>
    </section>
    <section class="card" aria-labelledby="clock-title">
      <div class="row between"><h2 id="clock-title">Clock</h2><button id="advance-clock" type="button" class="small" data-action="advance-clock">+30 min</button></div>
      <p id="clock" class="muted" data-testid="clock"></p>
    </section>
    <section class="card" aria-labelledby="faults-title">
      <h2 id="faults-title">Faults</h2>
      <p id="fault-setting" class="muted" data-testid="fault-setting"></p>
      <ul id="callback-faults" class="small" data-testid="callback-faults"></ul>
    </section>
    <section class="card" aria-labelledby="merchants-title">
      <h2 id="merchants-title">Merchants</h2>
      <div id="merchants"></div>
    </section>
    <section class="card" aria-labelledby="log-title">
      <div class="row between">
        <h2 id="log-title">Requests</h2>
        <label class="small muted"><input type="checkbox" id="show-reads"> show GET /dev reads</label>
      </div>
      <ol id="log" class="log" data-testid="log"></ol>
    </section>
  </div>
</main>
<footer><button id="forget-token" type="button" class="small" hidden>Forget the developer token</button></footer>
<script>${SCRIPT}</script>
</body>
</html>`
