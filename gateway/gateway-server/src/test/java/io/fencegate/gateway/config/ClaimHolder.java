package io.fencegate.gateway.config;

import io.fencegate.spi.ExclusivePath;
import java.nio.file.Path;
import java.util.List;

/** Child-process half of {@link LocalClaimsTest}: claims a directory, says so, holds it until stdin closes. */
public final class ClaimHolder {
    private ClaimHolder() {}

    public static void main(String[] args) throws Exception {
        ExclusivePath dir = ExclusivePath.directory(null, "data directory", Path.of(args[0]));
        try (LocalClaims claims = LocalClaims.claim(List.of(new LocalClaims.Wanted(null, dir)))) {
            System.out.println("claimed");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the claim until the parent closes our stdin (or dies)
            }
        }
    }
}
