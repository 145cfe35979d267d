import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { decodeText } from "../../src/domain/history/lines.js"
import { analyzeSession } from "../../src/domain/history/session.js"
import { renderSourceMessage, taskSourceMessages } from "../../src/domain/history/taskSource.js"
import { contentWords, OVERLAP_THRESHOLD, overlapSentence, taskOverlap } from "../../src/domain/history/taskOverlap.js"
import { PROJECTS } from "./support.js"

const THREADS = [
  ["-Users-user-project", "b3edadab-bca0-4054-9b41-f7ffa6941260.jsonl"],
  ["-workspace", "c45af7b1-cb7c-4e51-93db-8cbb250a877a.jsonl"],
  ["-path-to-Demo", "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"],
  ["-path-to-Demo", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"],
  ["-home-marco-projects-spotter", "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"]
] as const

const threads = THREADS.map(([folder, file]) => {
  const full = path.join(PROJECTS, folder, file)
  const analysis = analyzeSession({ threadId: file, mainPath: full, main: decodeText(fs.readFileSync(full, "utf8")), agents: [] })
  const messages = taskSourceMessages(analysis.conversation)
  return { name: file.slice(0, 8), request: analysis.request.request, source: messages.map(renderSourceMessage), own: messages.map((message) => message.text) }
})

/** Reconstructions written the way the synthesis model is asked to: the user's requirements, reworded, nothing added. */
const FAITHFUL = {
  c45af7b1: "Run `ls -la` in the current directory and show the output. Create a file hello_world.py containing minimal Python code. Read the file back with the Read tool. Run `cat nonexistent.txt` and report what happens. Then do something that requires multiple tools in one turn.",
  b3edadab: "Create a test file with some content, then edit it to add more content. Use a task agent to add further content to the file. Look at the new content that was added. Finally, think carefully and write a chain of cause-and-effect relationships spanning at least 20 steps."
}

describe("the share of a prompt's content words found in the user's messages", () => {
  it("counts distinct lowercased words of three letters or more that are not stop words; CJK runs as character pairs", () => {
    expect([...contentWords("Please ADD the add-on to the API, and add it again: ok?")].sort()).toEqual(["add", "api"])
    expect([...contentWords("最新の状態")]).toEqual(["最新", "新の", "の状", "状態"])
  })

  it("is 1 for every real thread's own request and never flags it", () => {
    for (const thread of threads) {
      const overlap = taskOverlap(thread.request, thread.source, thread.own)
      expect(overlap.share, thread.name).toBe(1)
      expect(overlap.coverage, thread.name).toBe(1)
      expect(overlap.flagged).toBe(false)
    }
  })

  it("stays below the threshold for each real thread's request measured against every other thread (the largest is 0.37)", () => {
    const shares = threads.flatMap((prompt) =>
      threads.filter((source) => source !== prompt).map((source) => taskOverlap(prompt.request, source.source).share ?? 0))
    expect(Math.max(...shares)).toBe(0.37)
    expect(shares.every((share) => share < OVERLAP_THRESHOLD)).toBe(true)
  })

  it("passes a faithful rewording of a real thread's messages and flags an unrelated task", () => {
    const of = (name: string) => threads.find((thread) => thread.name === name)!.source
    const own = (name: string) => threads.find((thread) => thread.name === name)!.own
    expect(taskOverlap(FAITHFUL.c45af7b1, of("c45af7b1"), own("c45af7b1"))).toMatchObject({ share: 0.64, coverage: 0.84, flagged: false })
    expect(taskOverlap(FAITHFUL.b3edadab, of("b3edadab"), own("b3edadab"))).toMatchObject({ share: 0.8, coverage: 0.55, flagged: false })
    const unrelated = taskOverlap("Implement a REST API in Go with JWT authentication and a PostgreSQL database layer.", of("b3edadab"))
    expect(unrelated).toMatchObject({ share: 0, flagged: true, prompt_words: 8 })
    expect(unrelated.unsupported_words).toContain("postgresql")
    expect(overlapSentence(unrelated)).toBe(
      "The task prompt shares 0% of its words with your messages in the thread (below 50%): check that it is the task you asked for before approving."
    )
  })

  it("flags a prompt without content words: there is nothing to check it by", () => {
    const overlap = taskOverlap("ok, do it", ["anything"])
    expect(overlap).toMatchObject({ share: null, flagged: true, prompt_words: 0 })
    expect(overlapSentence(overlap)).toBe("The task prompt has no content words to compare with your messages: check that it is the task you asked for before approving.")
  })

  it("flags a prompt on a long thread that finds its few words there but carries almost none of the user's own", () => {
    const long = threads.find((thread) => thread.name === "5c0375b4")!
    const few = [...contentWords(long.own.join("\n"))].slice(0, 5).join(" ")
    const overlap = taskOverlap(few, long.source, long.own)
    expect(overlap.share).toBe(1)
    expect(overlap.coverage).toBe(0.02)
    expect(overlap.flagged).toBe(true)
    expect(overlapSentence(overlap)).toBe(
      "The task prompt carries 2% of the words of your messages in the thread (below 25%): check that it is the task you asked for before approving."
    )
    // A prompt made only of the words of Claude's question carries none of the user's.
    const asked = taskOverlap("Deploy the staging cluster with Terraform", ["[Claude asked] Deploy the staging cluster with Terraform?\n[The user answered] 1"], ["1 please, and keep the logs verbose"])
    expect(asked).toMatchObject({ share: 1, coverage: 0, flagged: true })
  })
})
