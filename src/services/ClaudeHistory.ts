/** The Claude history service; its parts live in ./history/ (discovery, parse pool, index store, façade). */
export * from "./history/ClaudeHistory.js"
