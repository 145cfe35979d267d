/**
 * The page's DOM helpers. Every node is built with createElement and textContent, so thread, candidate and
 * report text can never become markup; the one exception is `fromReportHtml`, for the reports' own
 * renderers, which escape every value they are given.
 */

/** What `h` takes as children: nodes, text, nothing, or lists of these. */
export type Child = Node | string | null | undefined | false | ReadonlyArray<Child>

/** What `h` takes as properties: `text`, `className`, the three event handlers, and attributes. */
export type Props = {
  readonly [key: string]: string | number | boolean | null | undefined | ((event: Event) => void)
}

const HANDLERS: Readonly<Record<string, string>> = { onClick: "click", onInput: "input", onChange: "change" }
const PROPERTIES = new Set(["checked", "disabled", "value", "hidden"])

const appendChildren = (element: Element, children: ReadonlyArray<Child>) => {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (typeof child === "string") element.append(document.createTextNode(child))
    else if (child instanceof Node) element.append(child)
    else appendChildren(element, child)
  }
}

/** h("div", {className, text, ...attributes}, ...children) */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: ReadonlyArray<Child>): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue
    const event = HANDLERS[key]
    if (typeof value === "function") {
      if (event !== undefined) element.addEventListener(event, value)
    } else if (key === "text") element.textContent = String(value)
    else if (key === "className") element.className = String(value)
    else if (PROPERTIES.has(key)) Reflect.set(element, key, value)
    else element.setAttribute(key, value === true ? "" : String(value))
  }
  appendChildren(element, children)
  return element
}

/** The element with this id, or null. */
export const $ = (id: string): HTMLElement | null => document.getElementById(id)

/** The element with this id, which the page's HTML always has. */
export const byId = (id: string): HTMLElement => {
  const element = document.getElementById(id)
  if (element === null) throw new Error(`The page has no element #${id}.`)
  return element
}

/** The form control with this id, which the page's HTML always has. */
export const controlById = <T extends HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
  id: string,
  kind: new() => T
): T => {
  const element = byId(id)
  if (!(element instanceof kind)) throw new Error(`#${id} is not the control the page expects.`)
  return element
}

let uid = 0
/** A fresh id for a control and its label. */
export const nextId = (prefix: string) => `${prefix}-${++uid}`

/** The page's one alert line: a message, or hidden when there is none. */
export function notice(message: string | null | undefined) {
  const element = byId("notice")
  element.hidden = !message
  element.textContent = message ?? ""
}

/** A wide table; `labelScrollRegions` makes its region focusable, named, and cued when it overflows. */
export const scrollTable = (label: string, table: HTMLElement) =>
  h("div", { className: "table-scroll", "aria-label": `${label} (scrolls sideways)` }, table)

/**
 * A fragment of one of the reports' HTML renderers (src/domain/report, src/domain/portfolio), which escape
 * every value they insert: the page shows the same markup `report.html` and `portfolio.html` do.
 */
export const fromReportHtml = (html: string): DocumentFragment => document.createRange().createContextualFragment(html)

/** Every wide table scrolls in a focusable, named region with a cue when it overflows. */
export function labelScrollRegions(container: ParentNode) {
  const used = new Set<string>()
  for (const region of container.querySelectorAll<HTMLElement>(".table-scroll")) {
    if (!region.hasAttribute("tabindex")) region.setAttribute("tabindex", "0")
    if (!region.hasAttribute("role")) region.setAttribute("role", "region")
    if (!region.hasAttribute("aria-label")) {
      const heading = region.parentElement?.querySelector(":scope > h4, :scope > h3") ?? region.closest("section")?.querySelector("h3")
      const base = `${heading ? (heading.textContent ?? "").trim() : "Table"} (scrolls sideways)`
      let label = base
      for (let n = 2; used.has(label); n++) label = `${base} ${n}`
      region.setAttribute("aria-label", label)
    }
    used.add(region.getAttribute("aria-label") ?? "")
    requestAnimationFrame(() => markOverflow(region))
  }
}

const markOverflow = (region: Element) => region.classList.toggle("overflowing", region.scrollWidth > region.clientWidth + 1)

// The page is as wide as the window: a region that fits now may overflow once the window narrows, and back.
let resizing = 0
window.addEventListener("resize", () => {
  cancelAnimationFrame(resizing)
  resizing = requestAnimationFrame(() => document.querySelectorAll(".table-scroll").forEach(markOverflow))
})
