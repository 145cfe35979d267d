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

/** Loads every static file once; request paths are looked up in this map, never joined onto a path. */
export const loadStaticAssets = (root = STATIC_ROOT): ReadonlyMap<string, StaticAsset> => {
  const assets = new Map<string, StaticAsset>()
  for (const name of listFolderAtBoundary(root)) {
    const contentType = CONTENT_TYPES[path.extname(name)]
    if (contentType === undefined) continue
    assets.set(`/${name}`, { body: readFileAtBoundary(path.join(root, name)), contentType })
  }
  const index = assets.get("/index.html")
  if (index !== undefined) assets.set("/", index)
  return assets
}
