/** The process table, read through the platform adapter. */
export * from "../platform/procfs.js"
