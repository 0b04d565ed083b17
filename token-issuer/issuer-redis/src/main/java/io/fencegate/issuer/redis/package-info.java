/**
 * Leases from one single-master Redis: {@link io.fencegate.issuer.redis.RedisLeaseIssuer}.
 *
 * <h2>What it guarantees, and what it needs</h2>
 * <ul>
 *   <li><b>One master only.</b> Replicas, Sentinel and Cluster endpoints are refused at start:
 *       asynchronous replication loses locks and counters on failover.</li>
 *   <li><b>Tokens never repeat or go back</b>, also after FLUSHALL or a restart without
 *       persistence: Redis may only hand out tokens below a ceiling that the durable
 *       {@link io.fencegate.issuer.redis.TokenHighWaterMark} already covers (reserved in blocks,
 *       default 1000, the next one in the background once half of the current one is used, so
 *       acquires do not wait for its fsync; blocks double, up to 16 times, while acquires still
 *       catch up with the reservations), and a lost counter restarts at that mark. So does a counter that survived a
 *       Redis restart: a crash restores an older RDB snapshot, or an AOF ({@code everysec}) without
 *       its last second, and brings back an older counter. So does a master that follows another
 *       server ({@code REPLICAOF}), for instance its former replica detached before the last
 *       grants, and is promoted back: it keeps its {@code run_id}, which names the process, not
 *       its data. The acquire script compares the live {@code run_id} ({@code INFO server}) and
 *       {@code master_replid} ({@code INFO replication}, new at every change of role), inside the
 *       script, with the ones the counter was last set under ({@code {prefix}token-run}) and
 *       grants nothing until the counter was moved up to
 *       the mark; an issuer also refuses a counter below a token it handed out itself. Every issuer on one Redis and key
 *       prefix must share one mark (one file on a shared host, or a shared implementation). Losing
 *       both Redis's data and the mark loses the guarantee. Tokens are unique across locks and
 *       have gaps (unused rest of a block after a loss, a timed-out acquire).</li>
 *   <li><b>Mutual exclusion holds while Redis keeps its data.</b> A FLUSHALL or restart deletes
 *       held locks, so a second holder can be granted: its token is higher, so fenced writes
 *       stay safe, which is the point of fencing. A restart ends every lease granted before it
 *       (renew fails, the expiry watch reports EXPIRED), even one whose lock key came back from a
 *       snapshot: its holder may have released it, and another lease held the lock, after the
 *       snapshot. Such a key blocks its lock until its ttl passes.</li>
 *   <li><b>Cost of the restart check:</b> one {@code INFO server} and one {@code INFO replication}
 *       per renew and per expiry check, about 4 µs and 1 µs of Redis CPU (Redis's own
 *       {@code cmdstat_info}: 2.4–3.8 µs and 0.9 µs a call). Acquires pay the first only until the
 *       issuer has armed its own copy of the acquire script, once per Redis run, and always the
 *       second (the script cache survives {@code REPLICAOF}): no cheaper identity of a server run
 *       is readable from a script, but Redis 7 never persists its script cache, so a script the
 *       server knows was loaded in its live run.
 *       {@link io.fencegate.issuer.redis.RunCheckShortcut} loads a copy unique to a random nonce,
 *       proves with a probe run of that copy that the counter was checked under the live run, and
 *       from then on acquires run it with the check skipped; a restart forgets the copy (NOSCRIPT)
 *       and acquires check again. Off on Redis before 7, whose RDB and AOF files carry scripts.
 *       Not caught by either id: an older copy of the keys put back while Redis keeps its run and
 *       role ({@code DEBUG RELOAD NOSAVE} of an older RDB file, SWAPDB, RESTORE of saved keys); only
 *       issuers that handed out a higher token refuse it. The first replica to attach to a master
 *       gives it a new {@code master_replid}: one jump of the counter to the mark, and the leases
 *       granted before it end, as after a restart.</li>
 *   <li><b>wasGranted forgets</b> grants older than the latest 1000 per lock (trimmed in batches, so up
 *       to an eighth more are kept between trims), grants of locks unused
 *       for 7 days, and everything Redis lost (answers false, which only refuses a write).
 *       True answers are cached in-process.</li>
 *   <li><b>Not FIFO-fair</b> (ZooKeeper is): a released lock goes to whichever retry lands
 *       first. Waiters wake on a release PUBLISH; an expiry is caught by the lock's PTTL or
 *       a backoff poll of at most 200 ms. A caller that waits marks the lock ({@code waiters:<lock>},
 *       in the same script that finds it held), and a release publishes only when it finds the mark,
 *       so an uncontended release sends no message. Each issuer wakes only its longest waiting
 *       caller of the lock (not all of them, whose retries all but one answered "held"); a grant
 *       made while others wait at the granting issuer marks the lock again, so its release wakes
 *       the next one.</li>
 *   <li><b>Lock-delay</b> is a key {@code delay:<lock>} living ttl + delay, renewed with the
 *       lease and deleted by a release; the acquire script refuses the lock while it lives.
 *       Listings read an index of held locks ({@code leases}), kept by the acquire and release
 *       scripts, and who granted each lease from its grant's entry in the grant log (its member is
 *       {@code instance:token}; grants of earlier versions: the {@code holders} hash).</li>
 *   <li><b>What an uncontended try-lock pays</b> (an acquire that does not wait, and its release):
 *       15 Redis commands, each for a guarantee above (the table in docs/PERFORMANCE.md,
 *       {@code UncontendedCommandsIT} counts them): the acquire's {@code MGET} (free lock, no
 *       lock-delay, counter under the ceiling and checked under this run), {@code TIME} (Redis's
 *       clock did not step ahead, see {@code RedisClock}), {@code INFO replication}
 *       (no counter from a change of role), {@code INCR} (the token), {@code SET} (the lock and its
 *       expiry), the listing index's {@code ZADD}, the grant log's {@code ZADD}, {@code ZCARD} and
 *       {@code PEXPIRE} (wasGranted, bounded and forgotten after disuse); the release's {@code MGET}
 *       (only the holder's secret releases), {@code DEL} (the lock, and the waiters mark in the same
 *       command), the released-marker's {@code SET} (wasReleased) and the index's {@code ZREM}; one
 *       script call each. Nothing only waiting needs: no waiters mark, no message.</li>
 *   <li><b>Group commit.</b> An acquire made while two script calls of the issuer's acquires are
 *       in flight waits for one to answer, then goes out with every acquire queued meanwhile (at
 *       most 64) as one script call that runs them in turn, atomically, and answers each on its own;
 *       releases likewise. A lone call goes out at once (no timer). Measured with
 *       {@code RedisPairCost} (its own redis-server): 16 threads on distinct locks made about 0.6
 *       script calls a pair instead of 2, and about 15 Redis commands a pair instead of 17 (each
 *       acquire script call includes one {@code INFO replication}; measured before the holders hash
 *       went, which took two commands off every pair).
 *       A batch that fails (timeout, lost connection) fails each of its calls; an element that finds
 *       the counter lost or its block used up is repaired and sent again on its own.</li>
 *   <li><b>Read leases</b> ({@code read-acquire.lua}): a hash {@code readers:<lock>} of each
 *       read lease's token, ttl, delay and expiry (Redis's clock); while any may hold writers off
 *       (expiry plus lock-delay) the lock key says {@code r} and lives as long, so the write
 *       acquire script sees a held lock and stays as it was. Tokens from the one counter; the
 *       grant log keeps a read grant as {@code <token>r} for {@code grantedMode}. A waiting
 *       writer marks the lock {@code w}, which holds new readers off (writer preference, not FIFO);
 *       a waiters mark lives at most 5 s past its waiter's last try.</li>
 *   <li><b>Semaphores</b> ({@code permit.lua}): a permit is a write lease on the first free slot
 *       lock {@code <name>/<k>}; the count is the key {@code permits:<name>} (no expiry), fixed by
 *       the first acquire and, when lost, fixed again only if no slot at or above the asked count
 *       is held. Permit waiters mark {@code permit-waiters:<name>}; a permit's release wakes them.</li>
 *   <li>Counters are compared as Lua numbers: exact up to 2^53 tokens.</li>
 * </ul>
 */
package io.fencegate.issuer.redis;
