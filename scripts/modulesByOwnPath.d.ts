import type { Plugin } from "esbuild"

export declare const importsByOwnPath: (source: string) => string
export declare const modulesByOwnPath: (dist: string) => Plugin
