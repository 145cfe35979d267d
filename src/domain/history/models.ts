import { arrayField, isRecord, numberField, stringField } from "./json.js"

export interface ModelOption {
  readonly id: string
  readonly label: string
  readonly default?: true
}

/** The listed models of Codex CLI 0.171.0's bundled catalogue, used when the CLI cannot be asked. */
export const BUILT_IN_MODELS: ReadonlyArray<ModelOption> = [
  { id: "gpt-6.2-sol", label: "GPT-6.2-Sol", default: true },
  { id: "gpt-6.2-astra", label: "GPT-6.2-Astra" },
  { id: "gpt-6.1-terra", label: "GPT-6.1 Terra" },
  { id: "gpt-6.1-sol", label: "GPT-6.1-Sol" },
  { id: "gpt-6-astra", label: "GPT-6-Astra" },
  { id: "gpt-6-sol", label: "GPT-6-Sol" },
  { id: "gpt-6-luna", label: "GPT-6-Luna" },
  { id: "gpt-5.6-sol", label: "GPT-5.6-Sol" },
  { id: "gpt-5.6-terra", label: "GPT-5.6-Terra" },
  { id: "gpt-5.6-luna", label: "GPT-5.6-Luna" },
  { id: "gpt-5.5", label: "GPT-5.5" }
]

/**
 * Parses `codex debug models` output (`{"models": [...]}`): hidden models are left out, the rest ordered
 * by priority, the first one marked default. Returns undefined when the output is not that shape.
 */
export const parseModelCatalogue = (stdout: string): Array<ModelOption> | undefined => {
  const start = stdout.indexOf("{")
  if (start === -1) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(stdout.slice(start))
  } catch {
    return undefined
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.models)) return undefined
  const listed = arrayField(parsed, "models")
    .filter((model) => isRecord(model) && stringField(model, "slug") !== undefined && model.visibility !== "hide")
    .map((model, index) => ({
      id: stringField(model, "slug")!,
      label: stringField(model, "display_name") ?? stringField(model, "slug")!,
      priority: numberField(model, "priority") ?? Number.MAX_SAFE_INTEGER,
      index
    }))
    .sort((left, right) => left.priority - right.priority || left.index - right.index)
  return listed.map((model, index) => (index === 0
    ? { id: model.id, label: model.label, default: true as const }
    : { id: model.id, label: model.label }))
}
