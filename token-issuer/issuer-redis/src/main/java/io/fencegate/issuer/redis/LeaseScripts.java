package io.fencegate.issuer.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The Lua scripts behind every lease operation; each one runs atomically on the master.
 * A lock key's value is {@code secret:token:ttlMs}.
 */
final class LeaseScripts {

    /** Answers of the acquire script (first element of its reply). */
    static final long GRANTED = 1;
    static final long HELD = 0;
    static final long COUNTER_LOST = -1;
    static final long NEED_BLOCK = -2;

    /*
     * Shared by the scripts that must know whether Redis's data may have been replaced since the
     * counter was checked. The counter's run key records two identities, and both must still hold:
     * - run_id (INFO server): a Redis that crashes and comes back from an older RDB snapshot, or an
     *   AOF that lost its last second, still has a counter and a ceiling, only older ones. Every
     *   start gets a new run_id, and a snapshot cannot bring back the live one. (master_replid
     *   alone would not do: an RDB file carries the replication id, which a restart that loads it
     *   may keep, for partial resyncs.)
     * - master_replid (INFO replication): run_id names the process, not its data. A master that
     *   follows another server (REPLICAOF host port) replaces its data with that server's, also
     *   with an older copy of its own (its former replica, detached before the last grants), and
     *   keeps its run_id; promoted back (REPLICAOF NO ONE), it would hand out those grants again.
     *   Every change of role gives the server a new master_replid, so the check fails and the
     *   counter is moved up to the durable mark. master_replid2 (the id of the history it
     *   continues) is not accepted in its place: replication is asynchronous, so a server that
     *   continues our history may still lack its last writes.
     * INFO is allowed in scripts, so the check and the INCR are one atomic step: a command re-sent
     * after a reconnect is judged against the live identity too. What neither id sees: an older
     * copy of the keys put back inside one run and role (DEBUG RELOAD NOSAVE of an older RDB, SWAPDB
     * or MOVE/COPY/RESTORE of saved keys); only the highest-token check of the issuers that handed
     * out the newer tokens catches those.
     */
    private static final String RUN = """
            local function info_id(section, field)
              return string.match(redis.call('INFO', section), field .. ':(%x+)')
            end
            local function live_run_id()
              return info_id('server', 'run_id') .. ':' .. info_id('replication', 'master_replid')
            end
            local function run_floor_of(run, run_proven)
              if not run then return nil end
              local id, replid, floor = string.match(run, '^(%x+):(%x+):(%d+)$')
              if not floor or replid ~= info_id('replication', 'master_replid') then return nil end
              if not run_proven and id ~= info_id('server', 'run_id') then return nil end
              return tonumber(floor)
            end
            local function run_floor(key)
              return run_floor_of(redis.call('GET', key), false)
            end
            """;

    /*
     * One call runs any number of acquires in turn (a batch, see GroupCommit), atomically.
     * KEYS: counter, ceiling, run, live index, holders, then for each acquire: lock, grants, delay,
     * waiters. ARGV: run check ('check', 'skip' or 'probe'), grantsKept, grantRetentionMs, highest
     * token this issuer has seen, instance name, then for each acquire: secret, ttlMs, lockDelayMs,
     * lock name, waiters-mark ms (0: the caller does not wait), waiters-mark ms on a grant (0:
     * nobody else waits at this issuer). Answers one reply per acquire, in order: {1, token,
     * ceiling}, {0, pttl} (held), {-1} or {-2, counter}; a probe answers {1} if the counter was
     * checked under the live run, else {0}, and changes nothing.
     * An acquire sees the writes of those before it: a second acquire of one lock answers held.
     * The run_id half of the run check is skipped only by an armed copy of this script (see
     * RunCheckShortcut), which still compares master_replid; this text itself always checks both,
     * once per call (neither can change while a script runs).
     * Why the ceiling: Redis may hand out only tokens the durable high-water mark already covers.
     * Why refuse a missing counter: INCR would silently re-create it at 1 and repeat old tokens.
     * Why refuse a counter not checked under the live run and replication id: it may be an older
     * one from a snapshot, or from a server this one followed.
     * Why refuse a counter below a token this issuer saw: the same, caught without trusting run_id.
     * The lock check comes first, so a held lock consumes no token (and costs no INFO).
     * Why one MGET for lock, counter, ceiling and delay: every redis.call costs the script a
     * round of argument and reply conversion; reads of plain strings share one (the delay's PTTL
     * is asked only when a delay key exists).
     * Lock-delay: a lease granted with a delay also sets the delay key ({@code token:delayMs}),
     * living ttl + delay and renewed with the lease; a release deletes it, an expiry leaves it to
     * run out, so an involuntarily ended lease keeps the lock from everyone for the delay.
     * Why the waiters mark: a caller that will wait marks the held lock, so a release PUBLISHes only
     * when someone may be listening; the mark is set atomically with the 'held' answer, so a release
     * after it always wakes that caller. A grant marks the lock too when other callers wait at the
     * granting issuer: a release wakes only each issuer's longest waiting caller (see
     * ReleaseSignals), so the others have not marked the lock since the last release. A mark is
     * only ever lengthened by a 'held' answer: a short wait's poll must not cut short the mark of a
     * longer wait or of a grant made while others wait.
     * Why trim the grant log only past kept + kept/8: one ZREMRANGEBYRANK per kept/8 grants instead
     * of one per grant; the newest 'kept' grants are always there.
     * Why answer the ceiling: the issuer reserves the next block before this one runs out.
     */
    private static final String ACQUIRE = RUN + """
            local armed = false
            if ARGV[1] == 'probe' then
              if run_floor(KEYS[3]) then return {1} end
              return {0}
            end
            local checked
            local function run_checked()
              -- an armed copy in the cache proves the run (see RunCheckShortcut), not the role: the
              -- cache survives REPLICAOF, so the cheaper INFO replication is still read
              if checked == nil then
                checked = run_floor_of(redis.call('GET', KEYS[3]), armed and ARGV[1] == 'skip') ~= nil
              end
              return checked
            end
            local kept = tonumber(ARGV[2])
            local function held(waiters, mark_ms, pttl)
              if mark_ms ~= '0' and redis.call('PTTL', waiters) < tonumber(mark_ms) then
                redis.call('SET', waiters, '1', 'PX', mark_ms)
              end
              return {0, pttl}
            end
            local function acquire(lock_key, grants, delay, waiters, secret, ttl, lock_delay, lock, waiters_ms, others_ms)
              local state = redis.call('MGET', lock_key, KEYS[1], KEYS[2], delay)
              if state[1] then return held(waiters, waiters_ms, redis.call('PTTL', lock_key)) end
              if state[4] then
                local delayed = redis.call('PTTL', delay)
                if delayed > 0 then return held(waiters, waiters_ms, delayed) end
              end
              if not run_checked() then return {-1} end
              local counter, ceiling = state[2], state[3]
              if not counter or not ceiling then return {-1} end
              if tonumber(counter) < tonumber(ARGV[4]) then return {-1} end
              if tonumber(counter) + 1 > tonumber(ceiling) then return {-2, counter} end
              local token = redis.call('INCR', KEYS[1])
              redis.call('SET', lock_key, secret .. ':' .. token .. ':' .. ttl, 'PX', ttl)
              if tonumber(lock_delay) > 0 then
                redis.call('SET', delay, token .. ':' .. lock_delay, 'PX', tonumber(ttl) + tonumber(lock_delay))
              end
              if others_ms ~= '0' then redis.call('SET', waiters, '1', 'PX', others_ms) end
              redis.call('ZADD', KEYS[4], 0, lock)
              redis.call('HSET', KEYS[5], lock, token .. ':' .. ARGV[5])
              redis.call('ZADD', grants, token, token)
              if redis.call('ZCARD', grants) > kept + math.floor(kept / 8) then
                redis.call('ZREMRANGEBYRANK', grants, 0, -kept - 1)
              end
              redis.call('PEXPIRE', grants, ARGV[3])
              return {1, token, ceiling}
            end
            local replies = {}
            for i = 0, (#KEYS - 5) / 4 - 1 do
              local k, a = 5 + 4 * i, 5 + 6 * i
              replies[i + 1] = acquire(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4],
                  ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6])
            end
            return replies
            """;

    /*
     * KEYS: lock, grants, run, delay. ARGV: secret, grantRetentionMs. Answers {1, token, ttlMs} or {0}.
     * A lease granted before Redis restarted (token <= the run's floor, or the run not checked yet)
     * is over: its key may have come back from a snapshot after another lease held the lock.
     */
    private static final String RENEW = RUN + """
            local value = redis.call('GET', KEYS[1])
            if not value then return {0} end
            local secret, token, ttl = string.match(value, '^(%x+):(%d+):(%d+)$')
            if secret ~= ARGV[1] then return {0} end
            local floor = run_floor(KEYS[3])
            if not floor or tonumber(token) <= floor then return {0} end
            redis.call('PEXPIRE', KEYS[1], ttl)
            redis.call('PEXPIRE', KEYS[2], ARGV[2])
            local delay = redis.call('GET', KEYS[4])
            if delay then
              local delayToken, delayMs = string.match(delay, '^(%d+):(%d+)$')
              if delayToken == token then redis.call('PEXPIRE', KEYS[4], tonumber(ttl) + tonumber(delayMs)) end
            end
            return {1, token, ttl}
            """;

    /*
     * One call runs any number of releases in turn (a batch, see GroupCommit), atomically.
     * KEYS: live index, holders, then for each release: lock, released-marker, delay, waiters.
     * ARGV: channel, marker slack ms, then for each release: secret, lock name. Answers one 1
     * (released) or 0 (not this lease's lock any more) per release, in order.
     * The marker tells the granting issuer (maybe another instance) "released, not expired";
     * the PUBLISH wakes waiters without polling, and is sent only if a waiter marked the lock
     * (see ACQUIRE): an uncontended release costs no message to every subscriber.
     * Why one MGET and one DEL: fewer redis.calls. The DEL's count says whether the waiters mark
     * existed (the lock and a matching delay key were just read, and keys do not expire while a
     * script runs); a wrong count would only cost a waiter its wake-up, never the lock.
     */
    private static final String RELEASE = """
            local function release(lock_key, marker, delay_key, waiters, secret, lock)
              local state = redis.call('MGET', lock_key, delay_key)
              local value, delay = state[1], state[2]
              if not value or string.sub(value, 1, #secret + 1) ~= secret .. ':' then return 0 end
              local pttl = redis.call('PTTL', lock_key)
              if pttl < 0 then pttl = 0 end
              local ended = {lock_key, waiters}
              if delay and string.match(delay, '^(%d+):') == string.match(value, '^%x+:(%d+):') then
                ended[3] = delay_key -- a voluntary end: no lock-delay
              end
              local waited = redis.call('DEL', unpack(ended)) == #ended
              redis.call('SET', marker, '1', 'PX', pttl + tonumber(ARGV[2]))
              redis.call('ZREM', KEYS[1], lock)
              redis.call('HDEL', KEYS[2], lock)
              if waited then redis.call('PUBLISH', ARGV[1], lock) end
              return 1
            end
            local replies = {}
            for i = 0, (#KEYS - 2) / 4 - 1 do
              local k, a = 2 + 4 * i, 2 + 2 * i
              replies[i + 1] = release(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], ARGV[a + 1], ARGV[a + 2])
            end
            return replies
            """;

    /*
     * KEYS: lock, released-marker, run, live index, holders. ARGV: secret, lock name. Answers pttl
     * (>= 0) if alive, -1 released, -2 gone. A lease from before a Redis restart is gone, like in
     * RENEW. An expired lease whose lock is free leaves the listing index here, so the index does
     * not grow with every lock that ever expired (a listing drops the ones of issuers that died).
     */
    private static final String CHECK = RUN + """
            local value = redis.call('GET', KEYS[1])
            if value and string.sub(value, 1, #ARGV[1] + 1) == ARGV[1] .. ':' then
              local floor = run_floor(KEYS[3])
              if not floor or tonumber(string.match(value, '^%x+:(%d+):')) <= floor then return -2 end
              local pttl = redis.call('PTTL', KEYS[1])
              if pttl < 0 then return 0 end
              return pttl
            end
            if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
            if not value then
              redis.call('ZREM', KEYS[4], ARGV[2])
              redis.call('HDEL', KEYS[5], ARGV[2])
            end
            return -2
            """;

    /*
     * KEYS: lock, run. ARGV: secret. Answers {1, token, pttl} while the lease lives, else {0}.
     * Read only (for watchers); judges a lease from before a Redis restart gone, like RENEW.
     */
    private static final String FIND = RUN + """
            local value = redis.call('GET', KEYS[1])
            if not value then return {0} end
            local secret, token = string.match(value, '^(%x+):(%d+):')
            if secret ~= ARGV[1] then return {0} end
            local floor = run_floor(KEYS[2])
            if not floor or tonumber(token) <= floor then return {0} end
            local pttl = redis.call('PTTL', KEYS[1])
            if pttl < 0 then return {0} end
            return {1, token, pttl}
            """;

    /*
     * KEYS: live index, holders. ARGV: lock-key prefix, lock prefix, after (or ''), limit, most
     * index entries to examine. The index (a sorted set of lock names, all scored 0, so ordered by
     * bytes) gains a lock at each grant and loses it at release; an entry whose lock key is gone
     * (expired) is removed here, atomically with the check, so a racing grant's entry survives.
     * Answers {last examined ('' for none), 1 if entries remain after it, lock, token, pttl,
     * holder, lock, ...}.
     */
    private static final String LIST = """
            local prefix = ARGV[2]
            local max = '+'
            if #prefix > 0 then
              max = '(' .. string.sub(prefix, 1, -2) .. string.char(string.byte(prefix, -1) + 1)
            end
            local min = '-'
            if #ARGV[3] > 0 then min = '(' .. ARGV[3] elseif #prefix > 0 then min = '[' .. prefix end
            local limit = tonumber(ARGV[4])
            local cap = tonumber(ARGV[5])
            local out = {}
            local found = 0
            local examined = 0
            local last = ''
            while found < limit and examined < cap do
              local batch = redis.call('ZRANGEBYLEX', KEYS[1], min, max, 'LIMIT', 0, limit)
              if #batch == 0 then break end
              for _, lock in ipairs(batch) do
                examined = examined + 1
                last = lock
                local value = redis.call('GET', ARGV[1] .. lock)
                if value then
                  found = found + 1
                  out[#out + 1] = lock
                  out[#out + 1] = string.match(value, '^%x+:(%d+):') or '0'
                  out[#out + 1] = redis.call('PTTL', ARGV[1] .. lock)
                  out[#out + 1] = redis.call('HGET', KEYS[2], lock) or ''
                else
                  redis.call('ZREM', KEYS[1], lock)
                  redis.call('HDEL', KEYS[2], lock)
                end
                if found >= limit or examined >= cap then break end
              end
              min = '(' .. last
            end
            local more = 0
            if last ~= '' and #redis.call('ZRANGEBYLEX', KEYS[1], '(' .. last, max, 'LIMIT', 0, 1) > 0 then more = 1 end
            local reply = {last, more}
            for _, v in ipairs(out) do reply[#reply + 1] = v end
            return reply
            """;

    /*
     * KEYS: counter, ceiling. ARGV: new ceiling. Only ever raises; never creates a lost counter
     * (answers -1 then, and the next acquire recovers it from the durable mark).
     */
    private static final String RAISE_CEILING = """
            local counter = redis.call('GET', KEYS[1])
            local ceiling = redis.call('GET', KEYS[2])
            if not counter or not ceiling then return -1 end
            if tonumber(ARGV[1]) > tonumber(ceiling) then redis.call('SET', KEYS[2], ARGV[1]) end
            return 1
            """;

    /*
     * KEYS: counter, ceiling, run. ARGV: durable mark, highest token the calling issuer has seen.
     * Runs while the mark is frozen. Re-creates counter and ceiling at the largest of mark /
     * surviving counter / surviving ceiling, so nothing goes back, and records the live run with
     * that value as its floor. A no-op (0) if the counter is whole and was checked under the live
     * run (a racing issuer recovered first). Answers 1 if both keys were lost, 2 if one was,
     * 3 if both survived a restart (possibly rolled back from a snapshot).
     */
    private static final String REINIT = RUN + """
            local counter = redis.call('GET', KEYS[1])
            local ceiling = redis.call('GET', KEYS[2])
            if counter and ceiling and run_floor(KEYS[3]) and tonumber(counter) >= tonumber(ARGV[2]) then
              return 0
            end
            local value = ARGV[1]
            if counter and tonumber(counter) > tonumber(value) then value = counter end
            if ceiling and tonumber(ceiling) > tonumber(value) then value = ceiling end
            if tonumber(ARGV[2]) > tonumber(value) then value = ARGV[2] end
            redis.call('SET', KEYS[1], value)
            redis.call('SET', KEYS[2], value)
            redis.call('SET', KEYS[3], live_run_id() .. ':' .. value)
            if counter and ceiling then return 3 end
            if counter or ceiling then return 2 end
            return 1
            """;

    static final Script acquire = new Script(ACQUIRE, ScriptOutputType.MULTI);

    /**
     * A copy of the acquire script that may skip the run check when told to, unique to
     * {@code nonce}: only {@link RunCheckShortcut} loads it, and never by EVAL (see there why).
     */
    static String armedAcquire(String nonce) {
        String text = ACQUIRE.replace("local armed = false\n", "local armed = true -- copy " + nonce + "\n");
        if (text.equals(ACQUIRE)) {
            throw new IllegalStateException("the acquire script lost its 'armed' line");
        }
        return text;
    }
    static final Script renew = new Script(RENEW, ScriptOutputType.MULTI);
    static final Script release = new Script(RELEASE, ScriptOutputType.MULTI);
    static final Script check = new Script(CHECK, ScriptOutputType.INTEGER);
    static final Script find = new Script(FIND, ScriptOutputType.MULTI);
    static final Script list = new Script(LIST, ScriptOutputType.MULTI);
    static final Script raiseCeiling = new Script(RAISE_CEILING, ScriptOutputType.INTEGER);
    static final Script reinit = new Script(REINIT, ScriptOutputType.INTEGER);

    private LeaseScripts() { }

    /** One script: sent by digest, and in full only when the server does not know it yet. */
    static final class Script {
        private final String text;
        private final String sha;
        private final ScriptOutputType type;

        Script(String text, ScriptOutputType type) {
            this.text = text;
            this.type = type;
            this.sha = sha1(text);
        }

        <T> CompletionStage<T> run(RedisAsyncCommands<String, String> redis, String[] keys, String... args) {
            return runOr(redis, keys, args, error -> redis.<T>eval(text, type, keys, args));
        }

        /** By digest only: an unknown script fails with NOSCRIPT, which {@code onNoScript} handles. */
        <T> CompletionStage<T> runOr(RedisAsyncCommands<String, String> redis, String[] keys, String[] args,
                java.util.function.Function<Throwable, CompletionStage<T>> onNoScript) {
            CompletionStage<T> bySha = redis.evalsha(sha, type, keys, args);
            return bySha.exceptionallyCompose(error -> isNoScript(unwrap(error))
                    ? onNoScript.apply(error)
                    : CompletableFuture.failedStage(error));
        }

        String text() {
            return text;
        }

        static boolean isNoScript(Throwable error) {
            return error instanceof RedisNoScriptException
                    || (error.getMessage() != null && error.getMessage().startsWith("NOSCRIPT"));
        }
    }

    static Throwable unwrap(Throwable error) {
        while (error instanceof CompletionException && error.getCause() != null) {
            error = error.getCause();
        }
        return error;
    }

    static long asLong(Object value) {
        if (value instanceof Long l) {
            return l;
        }
        if (value instanceof String s) {
            return Long.parseLong(s);
        }
        if (value instanceof byte[] b) {
            return Long.parseLong(new String(b, StandardCharsets.UTF_8));
        }
        throw new IllegalStateException("unexpected script reply element " + value);
    }

    static long first(List<Object> reply) {
        return asLong(reply.get(0));
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
