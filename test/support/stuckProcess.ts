/**
 * What a daemon that does not answer or does not stop is doing, for the failure message: each thread's state
 * and where it waits in the kernel (its stack when the tests run as root), its children, its open files.
 */
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"

const read = (file: string) => {
  try {
    return fs.readFileSync(file, "utf8").trim()
  } catch {
    return ""
  }
}

const commandOf = (pid: string) => read(`/proc/${pid}/cmdline`).replaceAll("\0", " ").slice(0, 200)

export const describeProcess = (pid: number | undefined): string => {
  if (pid === undefined || !fs.existsSync(`/proc/${pid}`)) return `process ${pid} is gone`
  const lines = [`process ${pid}: ${commandOf(String(pid))}`]
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    const stat = read(`/proc/${pid}/task/${task}/stat`)
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
    const stack = read(`/proc/${pid}/task/${task}/stack`).split("\n").slice(0, 6).join(" < ")
    lines.push(`  thread ${task} ${read(`/proc/${pid}/task/${task}/comm`)} ${state} wchan=${read(`/proc/${pid}/task/${task}/wchan`)} ${stack}`)
  }
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    for (const child of read(`/proc/${pid}/task/${task}/children`).split(" ").filter((entry) => entry !== "")) {
      const stat = read(`/proc/${child}/stat`)
      lines.push(`  child ${child} (${stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)}): ${commandOf(child)}`)
    }
  }
  const fds = (() => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
        } catch {
          return "?"
        }
      })
    } catch {
      return []
    }
  })()
  lines.push(`  ${fds.length} open files: ${fds.filter((target) => !target.startsWith("anon_inode")).slice(0, 40).join(", ")}`)
  return lines.join("\n")
}

/**
 * SIGTERM, then the exit within `withinMs`; a daemon still there is described, killed and reported as a failure
 * (a daemon must stop on SIGTERM; waiting for it without a bound would turn the report into a test timeout).
 */
export const stopWithin = async (child: ChildProcess, output: () => string, withinMs = 20_000) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  child.kill("SIGTERM")
  let timer: NodeJS.Timeout | undefined
  const late = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), withinMs)))
  ])
  clearTimeout(timer)
  // The daemon's own bound (it exits when a step of stopping does not end): not a failure, but said.
  const stuck = /did not stop within .*/.exec(output())
  if (stuck !== null) console.warn(`daemon ${child.pid}: ${stuck[0]}`)
  if (!late) return
  // The daemon logs where each of its Codex attempts is (AttemptReportLive), if it still can.
  child.kill("SIGUSR2")
  await new Promise((resolve) => setTimeout(resolve, 500))
  const description = describeProcess(child.pid)
  child.kill("SIGKILL")
  await exited
  throw new Error(`the daemon did not stop within ${withinMs} ms of SIGTERM:\n${description}\noutput:\n${output().slice(-3000)}`)
}
