package io.fencegate.gateway.config;

import io.fencegate.spi.ClaimRefusedException;
import io.fencegate.spi.ExclusivePath;
import io.fencegate.spi.LocalClaim;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exclusive local state of one gateway ({@link ExclusivePath}), checked before anything opens.
 * Each backend's owner claims its own state when it opens it ({@link LocalClaim}: the embedded
 * ZooKeeper its data directory, the JDBC store its H2 file); this class checks all of them first,
 * so a second gateway on the same state fails before any backend has started (an H2 file in use
 * is refused before the issuer's ZooKeeper touches its directory), and it holds the claims of the
 * gateway's own state, the embedded default's data directory, until {@link #close()}.
 */
final class LocalClaims implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LocalClaims.class);
    static final String LOCK_NAME = LocalClaim.LOCK_NAME;
    static final String LOCK_SUFFIX = LocalClaim.LOCK_SUFFIX;

    /** A path and where its config puts it ({@code issuer.dataDir}), or no key at all. */
    record Wanted(String at, ExclusivePath path) {}

    private final List<LocalClaim> held;

    private LocalClaims(List<LocalClaim> held) {
        this.held = held;
    }

    /**
     * Checks every path of {@code checked} and {@code held} (creating nothing), then claims those
     * of {@code held}, each lock file once; on a refusal releases what it took and throws
     * {@link ConfigException} naming the key, the path and its holder.
     */
    static LocalClaims claim(List<Wanted> held, List<Wanted> checked) {
        List<Wanted> all = new ArrayList<>(held);
        all.addAll(checked);
        for (Wanted w : all) {
            try {
                LocalClaim.check(w.path());
            } catch (ClaimRefusedException e) {
                throw refused(w, e);
            }
        }
        List<LocalClaim> taken = new ArrayList<>();
        try {
            for (Wanted w : held) {
                try {
                    LocalClaim claim = LocalClaim.take(w.path(), why -> log.error("{}", why));
                    taken.add(claim);
                } catch (ClaimRefusedException e) {
                    if (taken.stream().anyMatch(c -> c.claimed().equals(e.claimed()))) {
                        continue; // one gateway naming one path twice claims it once
                    }
                    throw refused(w, e);
                }
            }
            return new LocalClaims(taken);
        } catch (RuntimeException e) {
            new LocalClaims(taken).close();
            throw e;
        }
    }

    static ConfigException refused(Wanted w, ClaimRefusedException e) {
        return w.at() == null ? new ConfigException(e.getMessage(), e) : new ConfigException(w.at(), e.getMessage());
    }

    /** Releases every claim (closing the channel drops the OS lock). The lock files stay. */
    @Override
    public void close() {
        for (int i = held.size() - 1; i >= 0; i--) {
            held.get(i).close();
        }
        held.clear();
    }
}
