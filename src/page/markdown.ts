/**
 * A candidate's final response as safe Markdown: headings, lists, code, emphasis as DOM nodes built with
 * textContent; never markup, scripts or requests (a link stays text, its address beside it).
 */
import { type Child, h } from "./dom.js"

const INLINE = /(`[^`]+`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*|\[[^\]]+\]\([^)]+\))/g
const LINK = /^\[([^\]]+)\]\(([^)]+)\)$/

/** Code, strong, emphasis and links of one line. */
export const inline = (text: string): Array<Child> => {
  const nodes: Array<Child> = []
  let last = 0
  for (const match of text.matchAll(INLINE)) {
    const index = match.index ?? 0
    if (index > last) nodes.push(text.slice(last, index))
    const token = match[0]
    const link = LINK.exec(token)
    if (token.startsWith("`")) nodes.push(h("code", { text: token.slice(1, -1) }))
    else if (token.startsWith("**")) nodes.push(h("strong", { text: token.slice(2, -2) }))
    else if (link !== null) nodes.push(h("span", { className: "md-link", text: `${link[1]} (${link[2]})` }))
    else nodes.push(h("em", { text: token.slice(1, -1) }))
    last = index + token.length
  }
  if (last < text.length) nodes.push(text.slice(last))
  return nodes
}

const HEADINGS = ["h4", "h5", "h6"] as const
const codeBlock = (lines: ReadonlyArray<string>) => h("pre", { className: "md-code", tabindex: "0" }, h("code", { text: lines.join("\n") }))

export const renderMarkdown = (text: string | null | undefined): HTMLElement => {
  const root = h("div", { className: "markdown response", tabindex: "0" })
  let list: HTMLElement | null = null
  let code: Array<string> | null = null
  let paragraph: Array<string> = []
  const flush = () => {
    if (paragraph.length) root.append(h("p", {}, inline(paragraph.join(" "))))
    paragraph = []
  }
  for (const line of String(text ?? "").split("\n")) {
    if (code !== null) {
      if (/^\s*```/.test(line)) {
        root.append(codeBlock(code))
        code = null
      } else code.push(line)
      continue
    }
    if (/^\s*```/.test(line)) {
      flush()
      list = null
      code = []
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line)
    if (heading !== null) {
      flush()
      list = null
      root.append(h(HEADINGS[Math.min(2, (heading[1] ?? "#").length - 1)] ?? "h6", {}, inline(heading[2] ?? "")))
    } else if (item !== null) {
      flush()
      if (list === null) {
        list = /^\s*\d/.test(line) ? h("ol") : h("ul")
        root.append(list)
      }
      list.append(h("li", {}, inline(item[1] ?? "")))
    } else if (!line.trim()) {
      flush()
      list = null
    } else {
      list = null
      paragraph.push(line.trim())
    }
  }
  if (code !== null) root.append(codeBlock(code))
  flush()
  if (!root.childElementCount) root.append(h("p", { className: "muted", text: "(none)" }))
  return root
}
