package io.fencegate.issuer.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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
 * A lock key's value is {@code secret:token:ttlMs}, or {@code r} while read leases hold it.
 */
final class LeaseScripts {

    /** Answers of the acquire script (first element of its reply). */
    static final long GRANTED = 1;
    static final long HELD = 0;
    static final long COUNTER_LOST = -1;
    static final long NEED_BLOCK = -2;
    /** The pttl of a read acquire's 'held' answer when only a waiting writer holds it off. */
    static final long HELD_FOR_WRITER = -1;
    /** A permit asked with another count than its semaphore's (permit script only). */
    static final long OTHER_COUNT = -3;
    /** Redis's clock is past the highest the issuer expects (a step ahead, see lease-clock.lua): nothing changed. */
    static final long CLOCK_MOVED = -4;

    /*
     * The scripts' text lives in src/main/resources, one .lua file each (lua/), each headed by
     * comments that say what it takes, answers and why; the header is not sent. run.lua holds the
     * functions that judge whether Redis's data may have been replaced since the counter was
     * checked; the scripts that need them run with it in front. Read once, when this class loads.
     */
    /* run.lua, with expiry-margin.lua: every script that checks the run also sets or reads an expiry. */
    private static final String RUN = lua("run") + lua("expiry-margin");
    private static final String LEASE_CLOCK = lua("lease-clock");
    private static final String ACQUIRE = RUN + LEASE_CLOCK + lua("acquire");

    static final Script acquire = new Script(ACQUIRE, ScriptOutputType.MULTI);

    /**
     * A copy of the acquire script that may skip the run check when told to, unique to
     * {@code nonce}: only {@link RunCheckShortcut} loads it, and never by EVAL (see there why).
     */
    static String armedAcquire(String nonce) {
        return armed(ACQUIRE, nonce);
    }

    /** The same for the permit script: a copy that may skip the run_id check, unique to {@code nonce}. */
    static String armedPermit(String nonce) {
        return armed(permit.text(), nonce);
    }

    private static String armed(String script, String nonce) {
        String text = script.replace("local armed = false\n", "local armed = true -- copy " + nonce + "\n");
        if (text.equals(script)) {
            throw new IllegalStateException("a script that may be armed lost its 'armed' line");
        }
        return text;
    }
    static final Script renew = new Script(RUN + lua("renew"), ScriptOutputType.MULTI);
    static final Script release = new Script(lua("release"), ScriptOutputType.MULTI);
    static final Script check = new Script(RUN + lua("check"), ScriptOutputType.INTEGER);
    static final Script find = new Script(RUN + lua("find"), ScriptOutputType.MULTI);
    static final Script list = new Script(lua("expiry-margin") + lua("list"), ScriptOutputType.MULTI);
    static final Script raiseCeiling = new Script(lua("raise-ceiling"), ScriptOutputType.INTEGER);
    static final Script reinit = new Script(RUN + lua("reinit"), ScriptOutputType.INTEGER);
    static final Script claimMark = new Script(lua("claim-mark"), ScriptOutputType.MULTI);
    static final Script clock = new Script(lua("clock"), ScriptOutputType.MULTI);
    static final Script clockRepair = new Script(lua("clock-repair"), ScriptOutputType.MULTI);

    /* Read leases and permits: run.lua and token.lua in front of each, and lease-clock.lua in front of the grants. */
    private static final String RUN_TOKEN = RUN + lua("token");
    static final Script readAcquire = new Script(RUN_TOKEN + LEASE_CLOCK + lua("read-acquire"), ScriptOutputType.MULTI);
    static final Script readRenew = new Script(RUN_TOKEN + lua("read-renew"), ScriptOutputType.MULTI);
    static final Script readRelease = new Script(RUN_TOKEN + lua("read-release"), ScriptOutputType.INTEGER);
    static final Script readFind = new Script(RUN_TOKEN + lua("read-find"), ScriptOutputType.MULTI);
    static final Script permit = new Script(RUN_TOKEN + LEASE_CLOCK + lua("permit"), ScriptOutputType.MULTI);

    private LeaseScripts() { }

    /**
     * The script in {@code lua/<name>.lua} beside this class, without its header: the comment
     * lines (and blank lines) before its first line of code, which Redis has no use for.
     */
    static String lua(String name) {
        String resource = "lua/" + name + ".lua";
        try (InputStream in = LeaseScripts.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the Redis issuer's script " + resource + " is missing from its jar");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int at = 0;
            while (at < text.length() && (text.startsWith("--", at) || text.startsWith("\n", at))) {
                int end = text.indexOf('\n', at);
                at = end < 0 ? text.length() : end + 1;
            }
            return text.substring(at);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Redis issuer's script " + resource, e);
        }
    }

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

    static String str(Object value) {
        return value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(value);
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
