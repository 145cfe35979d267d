const argv = process.argv.slice(2)
if (argv.length === 0 && process.stdin.isTTY === true) {
  // A person typed `codex-replay`: the MCP server would wait silently for JSON-RPC on the terminal.
  const { usageHint } = await import("./help.js")
  process.stdout.write(usageHint())
} else if (argv.length === 0) {
  const [{ mcpMain }, { run }] = await Promise.all([import("./modes.js"), import("./runMode.js")])
  run(mcpMain)
} else if (argv.length === 1 && argv[0] === "--http") {
  const [{ daemonMain }, { run }] = await Promise.all([import("./daemonMode.js"), import("./runMode.js")])
  run(daemonMain)
} else {
  const [{ terminalCommand }, { runCommand }] = await Promise.all([import("./commands.js"), import("./runMode.js")])
  runCommand(terminalCommand(process.argv))
}
