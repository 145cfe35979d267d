import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  conflict,
  controllerUnavailable,
  FAILURE_STATUS,
  failureStatus,
  INTERNAL_ERROR_MESSAGE,
  invalidArgument,
  isInternalFailure,
  notFound,
  publicFailure,
  StorageError,
  ToolFailure,
  unreadableFile
} from "../../src/domain/errors.js"
import * as errors from "../../src/domain/errors.js"

/** The tag of every kind a controller tool can fail with, read from the union's own members. */
const kindsOfToolFailure = ToolFailure.members.map((member) => member._tag)

describe("the failures a controller tool answers", () => {
  it("every kind of the union has exactly one HTTP status, and the mapping names no kind outside it", () => {
    expect(kindsOfToolFailure.length).toBeGreaterThanOrEqual(6)
    for (const kind of kindsOfToolFailure) {
      const status: unknown = FAILURE_STATUS[kind]
      expect(typeof status, kind).toBe("number")
      expect(Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599, kind).toBe(true)
    }
    expect(Object.keys(FAILURE_STATUS).sort()).toEqual([...kindsOfToolFailure].sort())
  })

  it("the caller's kinds answer 4xx; the machine's kinds answer 5xx", () => {
    for (const failure of [invalidArgument("x"), notFound("x"), conflict("x")]) {
      expect(failureStatus(failure)).toBeLessThan(500)
      expect(isInternalFailure(failure)).toBe(false)
    }
    const machine = [unreadableFile("x"), controllerUnavailable("x"), new StorageError({ message: "x" })]
    for (const failure of machine) {
      expect(failureStatus(failure), failure._tag).toBeGreaterThanOrEqual(500)
      expect(isInternalFailure(failure)).toBe(true)
    }
    expect(failureStatus(unreadableFile("x"))).toBe(500)
    expect(failureStatus(controllerUnavailable("x"))).toBe(503)
  })

  it("a machine failure is heard with its own message; a storage failure, which may name private files, generically", () => {
    const damaged = unreadableFile("The report of run run-1 cannot be read.")
    expect(publicFailure(damaged)).toBe(damaged)
    const down = controllerUnavailable("The local controller could not start. See /log for details.")
    expect(publicFailure(down).message).toBe(down.message)
    expect(publicFailure(new StorageError({ message: "EACCES /home/u/.cache/run-1" })).message).toBe(INTERNAL_ERROR_MESSAGE)
  })

  it("every kind travels as a Schema (RPC), keeping its tag and message", () => {
    const encode = Schema.encodeSync(ToolFailure)
    const decode = Schema.decodeUnknownEither(ToolFailure)
    for (const failure of [invalidArgument("a"), notFound("b"), conflict("c"), unreadableFile("d"), controllerUnavailable("e"), new StorageError({ message: "f" })]) {
      const decoded = decode(JSON.parse(JSON.stringify(encode(failure))))
      expect(Either.isRight(decoded) && decoded.right._tag).toBe(failure._tag)
      expect(Either.isRight(decoded) && decoded.right.message).toBe(failure.message)
    }
  })

  it("there is no generic alias of a kind: each failure is raised by its own name", () => {
    expect(Object.keys(errors)).not.toContain("controllerError")
  })
})
