/**
 * Process launchers and fault tools for fencegate's tests, its benchmarks, the demo and the nemesis
 * harness, written once. JDK only: no gateway, issuer or store dependency.
 *
 * <ul>
 *   <li>{@link io.fencegate.testing.ChildProcess}: a child process with its output read as lines or
 *       logged to a file, bounded waits, SIGKILL/SIGSTOP/SIGCONT by PID, killed when the JVM exits.</li>
 *   <li>{@link io.fencegate.testing.GatewayProcess}: {@code fencegate serve} as a child, on a
 *       classpath or through a launcher script; the one place that reads its "listening on" line.</li>
 *   <li>{@link io.fencegate.testing.RedisServer}: a redis-server of a test's own (plain, with AOF
 *       and snapshots, or a Sentinel).</li>
 *   <li>{@link io.fencegate.testing.PostgresServer}, {@link io.fencegate.testing.MariaDbServer}:
 *       database servers of a test's own that can be crashed and restarted
 *       ({@link io.fencegate.testing.DatabaseServer}).</li>
 *   <li>{@link io.fencegate.testing.TcpProxy}: a loopback link a test cuts or stalls.</li>
 *   <li>{@link io.fencegate.testing.ScratchDatabase}: a Postgres schema or MariaDB database of its
 *       own on the shared servers, dropped at close.</li>
 * </ul>
 */
package io.fencegate.testing;
