import { controllerTools } from "../programs/registry.js"
import { makeControllerRpcs } from "./group.js"

/** The group the daemon serves at `POST /api/rpc`: every tool of the registry, declared there once. */
export const ControllerRpcs = makeControllerRpcs(controllerTools)
