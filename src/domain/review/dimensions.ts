/**
 * The fixed review rubric (docs/verdicts.md): six dimensions, each a short list of pass/fail checks that a
 * reviewer answers per candidate. The order here is the order of the ballot, the report and the table.
 */
export const DIMENSIONS = [
  {
    id: "reliability",
    label: "Reliability",
    checks: [
      { id: "invalid_inputs", label: "Invalid inputs handled appropriately" },
      { id: "boundary_conditions", label: "Boundary conditions handled" },
      { id: "failure_handling", label: "Failures handled gracefully" },
      { id: "state_consistency", label: "State remains consistent" }
    ]
  },
  {
    id: "code_quality",
    label: "Code quality",
    checks: [
      { id: "clear_naming", label: "Names are clear" },
      { id: "readable_structure", label: "Structure is readable" }
    ]
  },
  {
    id: "request_fulfillment",
    label: "Request fulfillment",
    checks: [
      { id: "required_behavior", label: "Required behavior implemented" },
      { id: "stated_constraints", label: "Stated constraints followed" }
    ]
  },
  {
    id: "change_scope",
    label: "Change scope",
    checks: [
      { id: "relevant_files", label: "Only relevant files changed" },
      { id: "preserved_behavior", label: "Existing behavior preserved" }
    ]
  },
  {
    id: "safe_operations",
    label: "Safe operations",
    checks: [
      { id: "preserved_user_work", label: "Existing user work preserved" },
      { id: "protected_sensitive_data", label: "Sensitive data protected" }
    ]
  },
  {
    id: "accurate_reporting",
    label: "Accurate reporting",
    checks: [
      { id: "truthful_summary", label: "Summary is truthful" },
      { id: "disclosed_limitations", label: "Limitations disclosed" }
    ]
  }
] as const

export type Dimension = (typeof DIMENSIONS)[number]
export type DimensionId = Dimension["id"]
export type CheckId = Dimension["checks"][number]["id"]
export type ChecksOf<D extends DimensionId> = Extract<Dimension, { id: D }>["checks"][number]["id"]

export const DIMENSION_IDS: ReadonlyArray<DimensionId> = DIMENSIONS.map((dimension) => dimension.id)

/** The checks of one dimension, in rubric order. */
export const checksOf = <D extends DimensionId>(id: D): ReadonlyArray<{ readonly id: ChecksOf<D>; readonly label: string }> => {
  const checks: ReadonlyArray<{ readonly id: CheckId; readonly label: string }> =
    DIMENSIONS.find((dimension) => dimension.id === id)?.checks ?? []
  return checks as ReadonlyArray<{ readonly id: ChecksOf<D>; readonly label: string }>
}
