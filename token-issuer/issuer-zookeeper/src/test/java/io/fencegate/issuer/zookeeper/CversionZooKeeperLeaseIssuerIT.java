package io.fencegate.issuer.zookeeper;

/** The lease issuer contract with tokens from the lock parent's cversion (sequence + 1). */
class CversionZooKeeperLeaseIssuerIT extends ZooKeeperLeaseIssuerIT {

    @Override
    protected TokenMode tokenMode() {
        return TokenMode.CVERSION;
    }
}
