/**
 * {@code ./fencegate demo}: the inventory oversell, four ways ({@link io.fencegate.demo.Mode}).
 *
 * <p>{@link io.fencegate.demo.DemoMain} starts the shop's database ({@link io.fencegate.demo.Databases}),
 * the gateway as a process ({@link io.fencegate.demo.DemoGateway}, launched by fencegate-testing's
 * {@code GatewayProcess}) and the buyer JVMs ({@link io.fencegate.demo.Buyer}), once, and reuses them for every mode. A buyer reports what it
 * does as lines on stdout; {@link io.fencegate.demo.ModeRun} counts those lines and reads the
 * stock at the end, so the verdict comes from what customers were told against what the data
 * holds, not from the buyers' own opinion.
 *
 * <p>Why the pause is a real SIGSTOP and why it ends when it does: a sleep inside the buyer would
 * be a pause the buyer knows about; SIGSTOP stops every thread, as a long GC or a frozen VM does.
 * The buyer is thawed only once its lease has passed on and the next holder has read the stock:
 * that is the moment the read-modify-write hole is open (mode 2 loses an update, mode 3's fenced
 * read has already shut the stale writer out), and waking it any earlier would prove nothing.
 *
 * <p>Everything here uses only public APIs: {@code FencegateClient}, the gateway's command line,
 * {@code GuardRowTransactions} and {@code FencegateSchema}.
 */
package io.fencegate.demo;
