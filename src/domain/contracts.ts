/** The controller's contracts: see contracts/index.ts. */
export * from "./contracts/index.js"
