import { homedir } from "node:os"
import { fileURLToPath } from "node:url"
import { codeCachePath, runWithCodeCache } from "../services/internal/codeCache.js"

/**
 * Starts `codex-replay threads` from its bundle and V8's code cache (src/services/internal/codeCache.ts).
 * Bundled apart as CommonJS (`dist/bundle/listingLauncher.cjs`): `bin/codex-replay.js` requires it for a
 * listing, so that a listing answered from the thread index loads no ES module (the bin, `main.mjs` and its
 * chunks: about 10 ms of a warm listing's 400-odd).
 */
runWithCodeCache(fileURLToPath(new URL("./listing.cjs", import.meta.url)), codeCachePath(process.env, homedir()))
