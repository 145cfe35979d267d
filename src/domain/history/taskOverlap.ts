/**
 * How much a task prompt shares with the user's messages it was written from (docs/history.md): the share
 * of the prompt's distinct content words that occur in those messages (and the questions they answered),
 * and the coverage: the share of the user's own distinct content words (not Claude's questions) that occur
 * in the prompt. A prompt is flagged when its share is below OVERLAP_THRESHOLD, when it has no content word,
 * or when its coverage is below MIN_COVERAGE (an unrelated prompt on a long thread finds its few words in a
 * large vocabulary, but carries almost none of what the user wrote). A content word is a run of letters
 * or digits, lowercased, of three characters or more, that is not a stop word; a run of CJK characters
 * (written without spaces) counts as its character pairs.
 */

/** Below this share a prompt is flagged before approval (the fixtures that justify it: test/history/taskOverlap.test.ts). */
export const OVERLAP_THRESHOLD = 0.5
/** Below this coverage of the user's own words a prompt is flagged (faithful rewordings of the fixtures cover 0.55 and 0.84). */
export const MIN_COVERAGE = 0.25

const STOP_WORDS: ReadonlySet<string> = new Set(
  ("about above after again all also and any are because been before being below between both but can cannot could " +
    "did does doing done down during each either else etc even every few for from further had has have having her here " +
    "hers him his how into its itself just let like make made many may more most much must need not now off once only " +
    "other our ours out over own please same she should some such than that the their theirs them then there these they " +
    "this those through too under until upon use used using very want was way were what when where which while who whom " +
    "why will with within without would yet you your yours yourself able also already always another anything get got " +
    "its it's i'm i've we're we've don't doesn't can't won't isn't aren't wasn't shouldn't wouldn't couldn't one two " +
    "new sure okay yes task user claude asked answered request prompt").split(" ")
)

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’_]*/gu
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u

const pairs = (run: string) => {
  const characters = [...run]
  if (characters.length < 2) return []
  return characters.slice(1).map((character, index) => `${characters[index]}${character}`)
}

/** The distinct content words of a text. */
export const contentWords = (text: string): Set<string> => {
  const words = new Set<string>()
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0].replace(/['’_]+$/, "")
    if (CJK.test(word)) {
      for (const pair of pairs(word)) if (CJK.test(pair)) words.add(pair)
      continue
    }
    if ([...word].length >= 3 && !STOP_WORDS.has(word)) words.add(word)
  }
  return words
}

export interface TaskOverlap {
  /** The share (0–1, two decimals) of the prompt's content words found in the source messages; null when the prompt has none. */
  readonly share: number | null
  readonly prompt_words: number
  readonly shared_words: number
  readonly threshold: number
  /** The share (0–1, two decimals) of the user's own content words found in the prompt; null when not measured or the user wrote none. */
  readonly coverage?: number | null
  readonly min_coverage?: number
  /** True when the share is below the threshold or null, or the coverage is below its minimum: the prompt may not be the user's task. */
  readonly flagged: boolean
  /** Up to 12 of the prompt's words that no source message holds, for the person approving. */
  readonly unsupported_words: ReadonlyArray<string>
}

const twoDecimals = (value: number) => Math.round(value * 100) / 100

/**
 * The overlap of `prompt` with `sources` (the user's messages and the questions they answered) and, when
 * `own` (the user's own messages alone) is given, the prompt's coverage of the user's words.
 */
export const taskOverlap = (prompt: string, sources: ReadonlyArray<string>, own?: ReadonlyArray<string>): TaskOverlap => {
  const words = contentWords(prompt)
  const vocabulary = contentWords(sources.join("\n"))
  const unsupported = [...words].filter((word) => !vocabulary.has(word))
  const shared = words.size - unsupported.length
  const share = words.size === 0 ? null : twoDecimals(shared / words.size)
  const userWords = own === undefined ? undefined : contentWords(own.join("\n"))
  const coverage = userWords === undefined || userWords.size === 0 ? null : twoDecimals([...userWords].filter((word) => words.has(word)).length / userWords.size)
  return {
    share,
    prompt_words: words.size,
    shared_words: shared,
    threshold: OVERLAP_THRESHOLD,
    ...(own === undefined ? {} : { coverage, min_coverage: MIN_COVERAGE }),
    flagged: share === null || share < OVERLAP_THRESHOLD || (coverage !== null && coverage < MIN_COVERAGE),
    unsupported_words: unsupported.slice(0, 12)
  }
}

/** One sentence for a flagged prompt (the CLI's approval prompt and the page say it). */
export const overlapSentence = (overlap: TaskOverlap) =>
  overlap.share === null
    ? "The task prompt has no content words to compare with your messages: check that it is the task you asked for before approving."
    : overlap.share >= overlap.threshold && overlap.coverage != null && overlap.min_coverage !== undefined && overlap.coverage < overlap.min_coverage
    ? `The task prompt carries ${Math.round(overlap.coverage * 100)}% of the words of your messages in the thread (below ${Math.round(overlap.min_coverage * 100)}%): check that it is the task you asked for before approving.`
    : `The task prompt shares ${Math.round(overlap.share * 100)}% of its words with your messages in the thread${
      overlap.flagged ? ` (below ${Math.round(overlap.threshold * 100)}%): check that it is the task you asked for before approving.` : "."
    }`
