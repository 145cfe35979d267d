import { escapeHtml } from "./format.js"

/** The report's inline stylesheet: readable on screen, printable on paper, no external fonts or images. */
export const REPORT_CSS = `
:root{--ink:#1d232b;--muted:#5b6672;--line:#d8dee4;--panel:#f6f8fa;--codex:#2f6fdb;--claude:#c2671d;--good:#1a7f37;--bad:#b42318;--add-bg:#e6ffec;--add-ink:#116329;--del-bg:#ffebe9;--del-ink:#a40e26;--hunk:#ddf4ff}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#fff}
main{padding:24px clamp(12px,3vw,48px)}
p,ul,ol,dl{max-width:80ch}pre.request,pre.response{max-width:calc(80ch + 26px)}
.scroll-x{overflow-x:auto;margin:8px 0;container-type:inline-size}.scroll-x>table{margin:0}
.scroll-x caption{max-width:100cqi;text-align:left}
h1{margin:0 0 8px;font-size:28px}h2{margin:32px 0 12px;font-size:20px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{margin:16px 0 8px;font-size:16px}
.product{margin:0;color:var(--muted);text-transform:uppercase;letter-spacing:.08em;font-size:12px}
.identity{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0;color:var(--muted)}.identity dd{margin:0}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:12px;margin:0}
.verdict{margin:24px 0;padding:16px 20px;border-radius:8px;border:2px solid var(--line);background:var(--panel)}
.verdict--codex{border-color:var(--codex)}.verdict--claude{border-color:var(--claude)}
.verdict-kicker{margin:0;color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.08em}
.verdict-headline{margin:4px 0 8px;border:0;padding:0;font-size:26px}.verdict p:last-child{margin:0}
.not-like-for-like{font-size:15px;font-weight:600;color:#9a3412}.judges-split{font-size:15px;font-weight:600;color:#6b21a8}.possible-leak{margin:6px 0;padding:8px 10px;border:1px solid #b91c1c;border-radius:6px;background:#fef2f2;color:#7f1d1d}.comparability .concerns{margin:4px 0 8px}
.caveats{margin:6px 0 0;padding-left:18px;color:#9a3412}.caveats li{margin:2px 0}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
thead th{background:var(--panel)}
.evaluation-table td:nth-child(n+2),.evaluation-table th:nth-child(n+2){width:22%;text-align:center}
.evaluation-table tr.dimension th{background:#eef2f6}
.evaluation-table tr.score td,.evaluation-table tr.winner td{background:#fbfcfd}
.legend,.hint,.flips{color:var(--muted);font-size:13px}
.muted{color:var(--muted)}dl.reasons dt{font-weight:600;margin-top:8px}dl.reasons dd{margin:0}ul.reasons{margin:2px 0;padding-left:20px}
.review-status{padding:8px 12px;border-left:4px solid var(--bad);background:var(--del-bg);overflow-wrap:anywhere}
.order-dependent{font-size:12px;color:var(--muted);font-style:italic}
.no-ballot{font-weight:600}
.metric--better{color:var(--good);font-weight:600}.metric--worse{color:var(--bad)}
.number{text-align:right;font-variant-numeric:tabular-nums}
.token-label{position:relative;cursor:help;border-bottom:1px dotted var(--muted)}
.token-tooltip{display:none;position:absolute;left:0;top:100%;z-index:2;width:260px;padding:6px 8px;background:var(--ink);color:#fff;font-weight:400;font-size:12px;border-radius:4px}
.token-label:hover .token-tooltip,.token-label:focus .token-tooltip{display:block}
.token-chart{max-width:760px;display:block;margin:8px 0 12px}
section:has(>.scroll-x>.token-chart){display:grid;grid-template-columns:minmax(0,760px) minmax(0,1fr);gap:0 32px;align-items:start}
section:has(>.scroll-x>.token-chart)>h2{grid-column:1/-1}
.token-chart text{font:12px system-ui,sans-serif;fill:var(--ink)}
.bar-codex{fill:var(--codex)}.bar-claude{fill:var(--claude)}
.side-by-side{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px}
.files{margin:0 0 8px;padding-left:18px}.added{color:var(--add-ink)}.removed{color:var(--del-ink)}
.diff{padding:8px 0}
.diff-files{display:grid;gap:8px;min-width:0}.diff-file{min-width:0}
.diff-file-name{margin:8px 0 4px;font-size:14px;overflow-wrap:anywhere}.diff-status{color:var(--muted);font-weight:400}
.diff-count-added{color:var(--add-ink)}.diff-count-removed{color:var(--del-ink)}
.diff-file .diff{max-height:480px;overflow:auto}
.diff-line{display:block;padding:0 10px;min-height:1.45em}
.diff-added{background:var(--add-bg);color:var(--add-ink)}.diff-removed{background:var(--del-bg);color:var(--del-ink)}
.diff-hunk{background:var(--hunk);color:#0a3069}.diff-meta{color:var(--muted);font-weight:600}
.empty{color:var(--muted);font-style:italic}
.cut-note{margin:0 0 8px;padding:6px 10px;border-left:4px solid #bf8700;background:#fff8c5;color:#4d2d00}.binary{color:var(--muted)}
.checks-sentence{font-weight:600}.check--passed{color:var(--good)}.check--failed,.check--timed_out{color:var(--bad)}.check--could_not_run{color:var(--muted);font-style:italic}
.result--pass{color:var(--good);font-weight:600}.result--fail{color:var(--bad);font-weight:600}.result--na{color:var(--muted)}
.check-change,.check-reason{font-size:13px;color:var(--muted)}.change--broke .check-change{color:var(--bad);font-weight:600}.change--fixed .check-change{color:var(--good);font-weight:600}
.check-state{margin:6px 0}.check-outcomes{padding-left:18px}.check-excerpt{max-height:24em;overflow:auto;margin:4px 0 8px}
.about{color:var(--ink)}.sources{color:var(--muted);font-size:13px}
@media (max-width:1100px){section:has(>.scroll-x>.token-chart){display:block}}
@media (max-width:800px){.side-by-side{grid-template-columns:1fr}}
@media (max-width:600px){main{padding:16px 12px}h1{font-size:24px}th,td{padding:4px 5px}.token-chart{min-width:600px}}
@media print{
  body{font-size:11pt}main{padding:0}
  .scroll-x{overflow:visible}.token-chart{min-width:0}section:has(>.scroll-x>.token-chart){display:block}
  .side-by-side{grid-template-columns:1fr}
  pre{border-color:#999;background:#fff}
  .token-tooltip{display:none!important}
  .diff-file .diff{max-height:none;overflow:visible}
  tr,.verdict,.diff-line{break-inside:avoid}
  h2,h3{break-after:avoid}
  .diff-added,.diff-removed,.diff-hunk,.bar-codex,.bar-claude{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
`

/** A table or the token chart not yet in a region that scrolls sideways, or one that is (with its region). */
const WIDE_BLOCK = /(<div class="scroll-x" tabindex="0">)?(<table\b[\s\S]*?<\/table>|<svg class="token-chart"[\s\S]*?<\/svg>)/g

/**
 * Every table and token chart of a self-contained page in a focusable region that scrolls sideways on a narrow
 * window (the page itself never does); a block already in one is left as it is. The texts inside are escaped, so
 * a `<table` in the markup is always the renderers' own.
 */
export const inScrollRegions = (html: string): string =>
  html.replace(WIDE_BLOCK, (match, region: string | undefined, block: string) =>
    region === undefined ? `<div class="scroll-x" tabindex="0">${block}</div>` : match)

/**
 * The start of a self-contained page (report.html, portfolio.html) up to its `<main>`: no script, no external
 * request (the Content-Security-Policy allows inline styles and data: images only), no referrer.
 */
export const documentStart = (title: string, css: string) =>
  [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta name="referrer" content="no-referrer">`,
    `<title>${escapeHtml(title)}</title><style>${css}</style></head><body><main>`
  ].join("\n")
