/** How a write the disk refused for want of space is tried again (see `isOutOfSpace`). */
import { Duration, Schedule } from "effect"

/** The first wait after a write the disk refused for want of space. */
export const DISK_RETRY_FIRST = Duration.millis(250)
/** The longest wait between two tries: space that returns is noticed within this. */
export const DISK_RETRY_CAP = Duration.seconds(5)

/** 250 ms, doubling, at most 5 s apart, without end: whoever waits bounds it (a cancel, a deadline). */
export const diskRetrySchedule = Schedule.exponential(DISK_RETRY_FIRST).pipe(Schedule.union(Schedule.spaced(DISK_RETRY_CAP)))

/** How long a run's state write waits for space before the run fails as it would have at once. */
export const RUN_STATE_DISK_WAIT = Duration.seconds(10)
