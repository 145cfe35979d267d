/**
 * The page's address of a run or a batch, from the launch URL of the controller the command talks to
 * (`http://127.0.0.1:PORT/?token=…`): opened in any browser, it sets the page's cookie and shows that run or
 * batch (docs/controller.md, "Addresses"). It is good while that controller runs: a controller started later
 * has another API token, and another port when the usual one is taken.
 */
export const pageAddress = (launchUrl: string, pathname: string) => {
  const url = new URL(launchUrl)
  const token = url.searchParams.get("token")
  return `${url.origin}${pathname}${token === null ? "" : `?token=${token}`}`
}

export const runPageAddress = (launchUrl: string, runId: string) => pageAddress(launchUrl, `/runs/${encodeURIComponent(runId)}`)

export const batchPageAddress = (launchUrl: string, batchId: string) => pageAddress(launchUrl, `/batches/${encodeURIComponent(batchId)}`)
