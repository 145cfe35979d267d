/**
 * Why git would not treat a directory as a repository, from what `git rev-parse` printed: a repository owned by
 * another user is refused for "dubious ownership" (git's protection since 2.35.2), which is not the same as not
 * being a repository, and has its own remedy.
 */
export const notARepositoryReason = (directory: string, stderr: string): string =>
  /dubious ownership/i.test(stderr)
    ? `git refuses ${directory}: it is owned by another user ("dubious ownership"). If you trust it, run \`git config --global --add safe.directory ${directory}\` and try again.`
    : `${directory} is not a Git repository.`
