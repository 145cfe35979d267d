export const SERVER_NAME = "codex-replay"
export const APP_TITLE = "Codex Replay"
export const CONTROLLER_HOST = "127.0.0.1"
export const DEFAULT_CONTROLLER_PORT = 43118
export const CONTROLLER_PROTOCOL_VERSION = 1
export const CONTROL_HEADER = "X-Codex-Replay-Control"
export const HEARTBEAT_INTERVAL_SECONDS = 15
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 3600
export const MAX_PARALLEL_RUNS = 4
export const MAX_REPLAY_MODELS = 4
export const MAX_REPLAY_THREADS = 100
export const MAX_TEXT_BYTES = 32 * 1024
export const MAX_STATE_BYTES = 512 * 1024
export const MAX_HTTP_BODY_BYTES = 1024 * 1024
export const MAX_RUN_LOG_TAIL_BYTES = 128 * 1024
export const MAX_RUNTIME_FILE_BYTES = 64 * 1024
export const STATE_FILE = "controller-state.json"
export const RUN_LOG_FILE = "run.log"
export const RUNTIME_FILE = "controller-server.json"
export const ATTEMPT_FILE = "attempt.json"
/** `attempt.json` grows by one entry per model launch, so it may exceed a run state. */
export const ATTEMPT_MAX_BYTES = 4 * MAX_STATE_BYTES
export const CONTROLLER_LOG_FILE = "controller-server.log"
/** Every process a run starts carries this variable, so a sweep can find it after a crash. */
export const RUN_TAG_VARIABLE = "CODEX_REPLAY_RUN_TAG"

export const controllerOrigin = (port: number) => `http://${CONTROLLER_HOST}:${port}`

/** Compares dotted numeric versions; non-numeric parts count as 0. */
export const compareVersions = (left: string, right: string): number => {
  const parse = (value: string) => value.split(/[.+-]/).slice(0, 3).map((part) => Number.parseInt(part, 10) || 0)
  const [a, b] = [parse(left), parse(right)]
  for (let index = 0; index < 3; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0)
    if (difference !== 0) return Math.sign(difference)
  }
  return 0
}
