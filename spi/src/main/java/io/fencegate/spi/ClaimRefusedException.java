package io.fencegate.spi;

import java.nio.file.Path;

/**
 * A {@link LocalClaim} refused: another process (or another owner in this one) holds the state.
 * The message names what it is, where it is and who holds it.
 */
public final class ClaimRefusedException extends IllegalStateException {
    private final ExclusivePath wanted;
    private final Path claimed;

    ClaimRefusedException(ExclusivePath wanted, Path claimed, String holder) {
        super(wanted.what() + " " + claimed + " is in use by another fencegate (" + holder
                + "): one process at a time may use it; stop that one first, or give this one its own");
        this.wanted = wanted;
        this.claimed = claimed;
    }

    /** The path as asked for, with the setting that names it. */
    public ExclusivePath wanted() {
        return wanted;
    }

    /** Where the state really is (links resolved). */
    public Path claimed() {
        return claimed;
    }
}
