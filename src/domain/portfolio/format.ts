/** How a portfolio writes its shares and p-values, in every view (its page, the grid, the CLI). */

export const percent = (share: number | null) => (share === null ? "—" : `${(share * 100).toFixed(0)}%`)

export const pValue = (p: number | null) => (p === null ? "—" : p < 0.001 ? "< 0.001" : p.toFixed(3))
