package io.fencegate.check;

import java.net.URI;
import java.util.List;

/**
 * One run of a workload against a live deployment.
 *
 * @param gateways    the gateways' base URLs; clients spread their calls over all of them
 * @param clients     client threads in this process
 * @param firstClient number of this process's first client (so several processes' histories merge)
 * @param keys        items (locks) the clients contend on; for the bank, its accounts; for the semaphore, its permits
 * @param ttlMs       lease ttl; a pause is longer than it
 * @param thinkMs     up to this long between the read and the write (or while holding a mutex)
 * @param pauseChance how often a client pauses past its ttl instead of thinking
 * @param bypassJdbc  for {@link Control#BYPASS_GUARD}: the store's database (url, user, password)
 */
public record RunOptions(List<URI> gateways, Workload workload, int seconds, int clients, int firstClient,
        String store, String keyPrefix, int keys, long ttlMs, long thinkMs, double pauseChance,
        Control control, List<String> bypassJdbc, String apiKey) {

    /** Checks every option; the message names it. */
    public RunOptions validate() {
        require(!gateways.isEmpty(), "--url: at least one gateway URL");
        require(seconds >= 1, "--seconds: at least 1, got " + seconds);
        require(clients >= 1 && clients <= 1024, "--clients: 1 to 1024, got " + clients);
        require(workload != Workload.SEMAPHORE || keys >= 1 && keys <= SemaphoreWorkload.MAX_PERMITS,
                "--permits: 1 to " + SemaphoreWorkload.MAX_PERMITS + ", got " + keys);
        require(keys >= 1 && keys <= 1000, "--keys: 1 to 1000, got " + keys);
        require(workload != Workload.BANK || keys >= 2 && keys <= 8,
                "--accounts: 2 to 8 (a lease group holds at most 8 locks), got " + keys);
        require(ttlMs >= 100, "--ttl-ms: at least 100 (the gateway's minimum), got " + ttlMs);
        require(thinkMs >= 0, "--think-ms: not negative, got " + thinkMs);
        require(pauseChance >= 0 && pauseChance <= 1, "--pause-chance: 0 to 1, got " + pauseChance);
        require(!store.isBlank(), "--store: a store name");
        require(!keyPrefix.isBlank() && !keyPrefix.contains(".."), "--key-prefix: non-empty, no '..', got '" + keyPrefix + "'");
        require(control != Control.BYPASS_GUARD || bypassJdbc.size() >= 1,
                "--bypass-jdbc-url: the bypass-guard control writes straight to the store's database");
        require(control != Control.BYPASS_GUARD || workload.writesItems(),
                "--control bypass-guard: the mutex workload writes nothing; use counter, lock-set, bank, rw or semaphore");
        require(control != Control.PLAIN_READS || workload.writesItems(),
                "--control plain-reads: the mutex workload reads nothing; use counter, lock-set, bank, rw or semaphore");
        require(control != Control.OVER_GRANT || workload == Workload.SEMAPHORE,
                "--control over-grant: only the semaphore has permits to over-grant; use semaphore");
        return this;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
