const argv = process.argv.slice(2)
if (argv.length === 0) {
  const [{ mcpMain }, { run }] = await Promise.all([import("./modes.js"), import("./runMode.js")])
  run(mcpMain)
} else if (argv.length === 1 && argv[0] === "--http") {
  const [{ daemonMain }, { run }] = await Promise.all([import("./daemonMode.js"), import("./runMode.js")])
  run(daemonMain)
} else {
  const [{ commandLineMain }, { run }] = await Promise.all([import("./commands.js"), import("./runMode.js")])
  run(commandLineMain(process.argv), 130)
}
