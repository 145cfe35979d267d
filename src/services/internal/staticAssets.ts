import { isMissing } from "../../domain/ioErrors.js"
import { listFolderAtBoundary, readFileAtBoundary } from "../platform/nodeFiles.js"
import * as path from "node:path"
import { packagePath } from "./packageInfo.js"

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8"
}

export interface StaticAsset {
  readonly body: Uint8Array
  readonly contentType: string
}

/** The package's `static/` folder. */
export const STATIC_ROOT = packagePath("static/")

/** A source checkout not yet built has no page folder: its `/controller.js` is a 404 until `npm run build`. */
const namesIn = (folder: string, mayBeMissing: boolean): Array<string> => {
  try {
    return listFolderAtBoundary(folder)
  } catch (error) {
    if (mayBeMissing && isMissing(error)) return []
    throw error
  }
}

/** The page's script as `npm run build` bundles it from `src/page/` (`/controller.js`). */
export const PAGE_ROOT = packagePath("dist/page/")

/**
 * Loads every static file once, and the built page beside them; request paths are looked up in this map,
 * never joined onto a path.
 */
export const loadStaticAssets = (root = STATIC_ROOT, pageRoot = PAGE_ROOT): ReadonlyMap<string, StaticAsset> => {
  const assets = new Map<string, StaticAsset>()
  for (const folder of [root, pageRoot]) {
    for (const name of namesIn(folder, folder === pageRoot)) {
      const contentType = CONTENT_TYPES[path.extname(name)]
      if (contentType === undefined) continue
      assets.set(`/${name}`, { body: readFileAtBoundary(path.join(folder, name)), contentType })
    }
  }
  const index = assets.get("/index.html")
  if (index !== undefined) assets.set("/", index)
  return assets
}
