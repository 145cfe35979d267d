/**
 * Which commands of a shell line are checks (tests, builds, type checks, linters) and which are set-up
 * (dependency installs), by tables rather than a guess per call; and which are plain enough to offer at all.
 */
import { MAX_COMMAND_CHARS } from "../contracts/payloads.js"

export type CheckKind = "test" | "build" | "typecheck" | "lint"

/** One rule: the words a command starts with (`*` matches any one word) and what it checks. */
type Rule = readonly [pattern: string, kind: CheckKind]

const SCRIPT_KINDS: ReadonlyArray<readonly [RegExp, CheckKind]> = [
  [/^(test|tests|spec|e2e|check:test)(:|$)/, "test"],
  [/^(lint|eslint|biome|format:check|fmt:check|prettier:check)(:|$)/, "lint"],
  [/^(typecheck|type-check|tsc|types|check:types|check)(:|$)/, "typecheck"],
  [/^(build|compile)(:|$)/, "build"]
]

/** Checks by their first words (after `npx`, `pnpm exec`, `uv run`, `poetry run`, `bundle exec` and the like). */
const CHECK_RULES: ReadonlyArray<Rule> = [
  ["npm test", "test"],
  ["npm t", "test"],
  ["pnpm test", "test"],
  ["yarn test", "test"],
  ["bun test", "test"],
  ["node --test", "test"],
  ["deno test", "test"],
  ["deno check", "typecheck"],
  ["deno lint", "lint"],
  ["vitest", "test"],
  ["jest", "test"],
  ["mocha", "test"],
  ["ava", "test"],
  ["playwright test", "test"],
  ["tsc", "typecheck"],
  ["vue-tsc", "typecheck"],
  ["eslint", "lint"],
  ["biome check", "lint"],
  ["biome lint", "lint"],
  ["prettier --check", "lint"],
  ["pytest", "test"],
  ["python -m pytest", "test"],
  ["python3 -m pytest", "test"],
  ["python -m unittest", "test"],
  ["python3 -m unittest", "test"],
  ["tox", "test"],
  ["nox", "test"],
  ["mypy", "typecheck"],
  ["pyright", "typecheck"],
  ["ruff check", "lint"],
  ["ruff", "lint"],
  ["flake8", "lint"],
  ["pylint", "lint"],
  ["black --check", "lint"],
  ["go test", "test"],
  ["go vet", "lint"],
  ["go build", "build"],
  ["golangci-lint run", "lint"],
  ["cargo test", "test"],
  ["cargo nextest", "test"],
  ["cargo build", "build"],
  ["cargo check", "typecheck"],
  ["cargo clippy", "lint"],
  ["cargo fmt --check", "lint"],
  ["mvn test", "test"],
  ["mvn verify", "test"],
  ["mvn package", "build"],
  ["mvn compile", "build"],
  ["./mvnw test", "test"],
  ["gradle test", "test"],
  ["gradle build", "build"],
  ["gradle check", "test"],
  ["./gradlew test", "test"],
  ["./gradlew build", "build"],
  ["./gradlew check", "test"],
  ["rspec", "test"],
  ["rake test", "test"],
  ["rails test", "test"],
  ["rubocop", "lint"],
  ["mix test", "test"],
  ["mix compile", "build"],
  ["mix format --check-formatted", "lint"],
  ["mix credo", "lint"],
  ["dotnet test", "test"],
  ["dotnet build", "build"],
  ["swift test", "test"],
  ["swift build", "build"],
  ["phpunit", "test"],
  ["vendor/bin/phpunit", "test"],
  ["composer test", "test"],
  ["ctest", "test"],
  ["shellcheck", "lint"],
  ["make test", "test"],
  ["make check", "test"],
  ["make lint", "lint"],
  ["make build", "build"],
  ["make typecheck", "typecheck"],
  ["make", "build"]
]

/** Dependency installs: what a copy needs before its checks can run. */
const SETUP_RULES: ReadonlyArray<string> = [
  "npm ci",
  "npm install",
  "npm i",
  "pnpm install",
  "pnpm i",
  "yarn install",
  "yarn",
  "bun install",
  "pip install",
  "pip3 install",
  "python -m pip install",
  "python3 -m pip install",
  "poetry install",
  "uv sync",
  "uv pip install",
  "pipenv install",
  "bundle install",
  "go mod download",
  "cargo fetch",
  "composer install",
  "mix deps.get",
  "dotnet restore"
]

/** Words that run the rest of the command: `npx vitest` checks as `vitest` does. */
const RUNNERS: ReadonlyArray<string> = ["npx", "pnpm exec", "pnpm dlx", "yarn dlx", "bunx", "uv run", "poetry run", "pipenv run", "bundle exec"]

export const wordsOf = (text: string) => text.trim().split(/\s+/).filter((word) => word !== "")
const startsWithWords = (words: ReadonlyArray<string>, pattern: string) => {
  const wanted = wordsOf(pattern)
  return wanted.length <= words.length && wanted.every((word, index) => word === words[index])
}

/** The words after any runner prefix and environment assignments (`CI=1 npx vitest run` → `vitest run`). */
const coreWords = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  let rest = words
  while (rest.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0]!)) rest = rest.slice(1)
  for (const runner of RUNNERS) {
    if (startsWithWords(rest, runner)) return coreWords(rest.slice(wordsOf(runner).length))
  }
  return rest
}

/** What a command checks, or undefined when it is no check (package scripts by their name). */
export const checkKindOf = (command: string): CheckKind | undefined => {
  const words = coreWords(wordsOf(command))
  if (words.length === 0) return undefined
  const [tool, verb, script] = words
  if ((tool === "npm" || tool === "pnpm" || tool === "yarn" || tool === "bun") && verb === "run" && script !== undefined) {
    return SCRIPT_KINDS.find(([pattern]) => pattern.test(script))?.[1]
  }
  if ((tool === "pnpm" || tool === "yarn") && verb !== undefined && !verb.startsWith("-")) {
    const scripted = SCRIPT_KINDS.find(([pattern]) => pattern.test(verb))?.[1]
    if (scripted !== undefined) return scripted
  }
  return CHECK_RULES.find(([pattern]) => startsWithWords(words, pattern))?.[1]
}

/**
 * Whether a command installs what the project already declares. One that names packages (`npm install
 * left-pad`, `pip install requests`) changes the project or its environment: that is Claude's work, not
 * set-up to repeat on every side.
 */
export const isSetupCommand = (command: string) => {
  const words = coreWords(wordsOf(command))
  const rule = SETUP_RULES.find((pattern) => startsWithWords(words, pattern))
  if (rule === undefined) return false
  const rest = words.slice(wordsOf(rule).length)
  return /\bpip\b/.test(rule) ? isPipFromProject(rest) : rest.every((word) => SETUP_FLAGS.has(word))
}

/**
 * The flags a set-up command may carry: none that names another package source, another directory or
 * another registry (`--registry=…`, `--index-url …`, `--prefix …`), since set-up runs with the network on.
 */
const SETUP_FLAGS: ReadonlySet<string> = new Set([
  "--frozen-lockfile",
  "--immutable",
  "--no-audit",
  "--no-fund",
  "--prefer-offline",
  "--silent",
  "-s",
  "-q",
  "--quiet",
  "--ignore-scripts",
  "--legacy-peer-deps",
  "--no-interaction",
  "--no-progress",
  "--prefer-dist",
  "--locked",
  "--frozen",
  "--all-extras",
  "--dev",
  "--no-root",
  "--sync"
])

/** `pip install -r FILE` or `-e .`, FILE inside the project: what the project declares, from the default index. */
const isPipFromProject = (rest: ReadonlyArray<string>) => {
  let declared = false
  for (let index = 0; index < rest.length; index++) {
    const word = rest[index]!
    if (word === "-q" || word === "--quiet" || word === "--no-input") continue
    if (word === "-e" && rest[index + 1] === ".") {
      declared = true
      index++
      continue
    }
    const file = word === "-r" || word === "--requirement" ? rest[++index] : word.startsWith("--requirement=") ? word.slice(14) : undefined
    if (file === undefined || !isProjectPath(file)) return false
    declared = true
  }
  return declared
}

const isProjectPath = (file: string) => /^[A-Za-z0-9_.\-/]+$/.test(file) && !file.startsWith("/") && !file.split("/").includes("..")

/**
 * Whether a command found in a transcript is plain enough to offer: ASCII words, quotes that pair up, and
 * nothing the shell would expand or run besides it (`$`, backticks, `&`, `\`, `<(`, `#`, `~`), no path that
 * leaves the project (`/…`, `..`), no run of spaces hiding its tail, and at most `MAX_COMMAND_CHARS`. One that
 * is not is never offered: a crafted transcript cannot slip a payload into a check.
 */
export const isPlainCommand = (command: string) =>
  command.length <= MAX_COMMAND_CHARS &&
  /^[A-Za-z0-9 _\-./:=@+,%'"*]+$/.test(command) &&
  !/\s{2,}/.test(command) &&
  (command.match(/'/g) ?? []).length % 2 === 0 &&
  (command.match(/"/g) ?? []).length % 2 === 0 &&
  !wordsOf(command).some((word) => /(^|[='"])\//.test(word) || word.split(/[/='"]/).includes(".."))

