import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"

/** The SDK's package.json, found the way Node looks up packages (its exports are import-only). */
const sdkPackageJson = () => {
  for (let directory = path.dirname(fileURLToPath(import.meta.url)); ; directory = path.dirname(directory)) {
    const candidate = path.join(directory, "node_modules", "@openai", "codex-sdk", "package.json")
    if (fs.existsSync(candidate)) return candidate
    if (path.dirname(directory) === directory) throw new Error("@openai/codex-sdk is not installed")
  }
}

/**
 * The real codex binary that `@openai/codex-sdk` pins (its `@openai/codex` platform package),
 * driven offline against a local mock Responses server.
 */
export const realCodexBinary = (): string | undefined => {
  const triple = process.arch === "arm64" ? "aarch64-unknown-linux-musl" : "x86_64-unknown-linux-musl"
  const platformPackage = process.arch === "arm64" ? "@openai/codex-linux-arm64" : "@openai/codex-linux-x64"
  try {
    const fromSdk = createRequire(sdkPackageJson())
    const codexPackage = createRequire(fromSdk.resolve("@openai/codex/package.json"))
    const root = path.dirname(codexPackage.resolve(`${platformPackage}/package.json`))
    const binary = path.join(root, "vendor", triple, "bin", "codex")
    return process.platform === "linux" && fs.existsSync(binary) ? binary : undefined
  } catch {
    return undefined
  }
}

export const binary = realCodexBinary()

// Outside /tmp: codex refuses to create its helper aliases under a temporary directory. One root per
// test process, so that one file's cleanup never removes another's homes.
export const codexHomeRoot = path.join(os.homedir(), ".cache", `codex-replay-real-tests-${process.pid}`)
export const codexHome = () => {
  fs.mkdirSync(codexHomeRoot, { recursive: true })
  return fs.mkdtempSync(path.join(codexHomeRoot, "home-"))
}
afterAll(() => fs.rmSync(codexHomeRoot, { recursive: true, force: true }))

/** `--config` values that point codex at the local mock Responses server. */
export const mockProviderConfig = (url: string) => ({
  model_provider: "mock",
  model_providers: {
    mock: { name: "mock", base_url: url, wire_api: "responses", supports_websockets: false, request_max_retries: 1, stream_max_retries: 1 }
  }
})
