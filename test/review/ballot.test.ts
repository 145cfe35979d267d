import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { BALLOT_JSON_SCHEMA, canonicalBallot, decideDimension, parseBallot, scoreOf } from "../../src/domain/review/ballot.js"
import { DIMENSIONS } from "../../src/domain/review/dimensions.js"
import { ballotFavouring, makeBallot } from "./ballots.js"

type JsonNode = { [key: string]: unknown }

const objectNodes = (node: unknown, path = "$"): Array<{ path: string; node: JsonNode }> => {
  if (typeof node !== "object" || node === null) return []
  if (Array.isArray(node)) return node.flatMap((child, index) => objectNodes(child, `${path}[${index}]`))
  const record = node as JsonNode
  const own = record.type === "object" ? [{ path, node: record }] : []
  return [...own, ...Object.entries(record).flatMap(([key, child]) => objectNodes(child, `${path}.${key}`))]
}

describe("ballot schema", () => {
  it("is strict: every object forbids extra properties and requires all of them", () => {
    const objects = objectNodes(BALLOT_JSON_SCHEMA)
    expect(objects.length).toBeGreaterThan(30)
    for (const { path, node } of objects) {
      expect(node.additionalProperties, path).toBe(false)
      expect([...(node.required as Array<string>)].sort(), path).toEqual(Object.keys(node.properties as JsonNode).sort())
    }
    expect(BALLOT_JSON_SCHEMA).not.toHaveProperty("$schema")
  })

  it("lists the six dimensions and their checks, evidence before the result", () => {
    const dimensions = (BALLOT_JSON_SCHEMA.properties as any).dimensions.properties
    expect(Object.keys(dimensions)).toEqual(DIMENSIONS.map((dimension) => dimension.id))
    for (const dimension of DIMENSIONS) {
      const checks = dimensions[dimension.id].properties.candidates.properties.A.properties.checks.properties
      expect(Object.keys(checks)).toEqual(dimension.checks.map((check) => check.id))
      const answer = checks[dimension.checks[0]!.id]
      expect(Object.keys(answer.properties)).toEqual(["evidence", "result"])
    }
  })

  it("parses a valid ballot and explains an invalid one", () => {
    const ballot = ballotFavouring("A")
    expect(Either.isRight(parseBallot(JSON.stringify(ballot)))).toBe(true)
    expect(parseBallot("not json")).toEqual(Either.left("The reviewer's answer is not valid JSON."))
    const extra = { ...ballot, narrative: "x" }
    const invalid = parseBallot(JSON.stringify(extra))
    expect(Either.isLeft(invalid) && invalid.left).toMatch(/does not match the schema/)
    const broken = JSON.parse(JSON.stringify(ballot))
    broken.dimensions.reliability.candidates.A.checks.invalid_inputs.result = 2
    expect(Either.isLeft(parseBallot(JSON.stringify(broken)))).toBe(true)
    delete broken.dimensions.code_quality
    expect(Either.isLeft(parseBallot(JSON.stringify(broken)))).toBe(true)
  })
})

describe("dimension decisions", () => {
  const checks = ["invalid_inputs", "boundary_conditions", "failure_handling", "state_consistency"] as const

  it("scores passed over applicable, ignoring N/A", () => {
    const answers = { checks: { invalid_inputs: { evidence: "", result: 1 as const }, boundary_conditions: { evidence: "", result: 1 as const }, failure_handling: { evidence: "", result: 0 as const }, state_consistency: { evidence: "", result: null } }, score: 0 }
    expect(scoreOf(answers, checks)).toBeCloseTo(2 / 3)
    expect(scoreOf({ checks: {}, score: null }, checks)).toBeNull()
  })

  it("lets the checks decide and the preference only break ties", () => {
    const ballot = makeBallot((dimension, check, position) =>
      dimension === "reliability" ? (position === "A" ? (check === "invalid_inputs" ? 1 : 0) : 1) : dimension === "code_quality" ? 1 : null,
      () => "A")
    expect(decideDimension(ballot.dimensions.reliability, checks)).toBe("B")
    expect(decideDimension(ballot.dimensions.code_quality, ["clear_naming", "readable_structure"])).toBe("A")
    expect(decideDimension(ballot.dimensions.change_scope, ["relevant_files", "preserved_behavior"])).toBe("not_applicable")
    const canonical = canonicalBallot(ballot)
    expect(canonical.dimensions.reliability.candidates.A.score).toBe(0.25)
    expect(canonical.dimensions.reliability.candidates.B.score).toBe(1)
    expect(canonical.dimensions.reliability.winner).toBe("B")
    expect(canonical.dimensions.change_scope.candidates.A.score).toBeNull()
  })
})

describe("ballot schema and the worker", () => {
  it("is the strict schema the Codex worker sends with --output-schema", async () => {
    const { outputJsonSchema } = await import("../../src/domain/worker.js")
    const { Ballot } = await import("../../src/domain/review/ballot.js")
    const sent = outputJsonSchema(Ballot)
    expect(Either.isRight(sent) && sent.right).toEqual(BALLOT_JSON_SCHEMA)
  })
})
