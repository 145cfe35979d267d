/** Files handed to the browser's downloads: a blob the page holds, or a file the controller sends (`POST /api/download`). */
import { messageOf, postRaw } from "./client.js"
import { h, notice } from "./dom.js"

/** Hands a file to the browser's downloads. */
export function saveBlob(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob)
  const link = h("a", { href: url, download: fileName, className: "visually-hidden" })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10000)
}

/** Downloads what `POST /api/download` sends for `body`, under the name the controller gives it. */
export async function downloadFromController(body: object, fallbackName: string) {
  try {
    const response = await postRaw("/api/download", body)
    const match = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "")
    saveBlob(await response.blob(), match?.[1] ?? fallbackName)
  } catch (error) {
    notice(`Download failed: ${messageOf(error)}`)
  }
}
