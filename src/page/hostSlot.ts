/**
 * A view module's hooks into the rest of the page (its host), handed over once by the page's wiring
 * (wiring.ts) before the view is drawn; reading them before is a bug, said in `notReady`.
 */
export const hostSlot = <Host>(notReady: string) => {
  let current: Host | null = null
  return {
    set: (host: Host) => {
      current = host
    },
    get: (): Host => {
      if (current === null) throw new Error(notReady)
      return current
    },
    ready: () => current !== null
  }
}
