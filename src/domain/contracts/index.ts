/**
 * The controller's contracts, Schema only (nothing here has a side effect): every tool's payload
 * (payloads.ts), every tool's result (results.ts), and the run state and the controller's own files
 * (files.ts). The daemon, the RPC group, the CLI, embedding programs and tests share them.
 */
export * from "./threadPayloads.js"
export * from "./files.js"
export * from "./payloads.js"
export * from "./results.js"
export * from "./votes.js"
export * from "./taskSource.js"
export * from "./repeats.js"
export * from "./preflight.js"
export * from "./grid.js"
