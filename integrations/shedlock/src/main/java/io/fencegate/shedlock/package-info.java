/**
 * Fenced ShedLock: {@link io.fencegate.shedlock.FencedLockProvider} grants each {@code @SchedulerLock}
 * run a fencegate lease, {@link io.fencegate.shedlock.FencedJob} gives the running job its token and
 * tells it when the lease was lost.
 */
package io.fencegate.shedlock;
