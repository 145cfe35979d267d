/** Reconciliation of interrupted runs lives with the services that do it (src/services/Reconciliation.ts). */
export { markInterrupted, markOwnRunsInterrupted, reconcileInterruptedRuns } from "../services/Reconciliation.js"
