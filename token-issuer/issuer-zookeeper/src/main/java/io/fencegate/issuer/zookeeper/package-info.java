/**
 * Leases with fencing tokens from a ZooKeeper ensemble, through Apache Curator:
 * {@link io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer}.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Exclusive and FIFO-fair per lock: EPHEMERAL_SEQUENTIAL nodes under a PERSISTENT lock
 *       parent; each waiter watches only its predecessor (with a data watch, which ZooKeeper never
 *       leaves behind on a node that is already gone); no thread waits per waiter. One acquire
 *       grants at most once: a failed grant ends it.</li>
 *   <li>One round trip to acquire and one to release when nobody else wants the lock
 *       ({@link io.fencegate.issuer.zookeeper.UncontendedGrant}): in ZXID mode one transaction
 *       deletes and re-creates the empty lock node (a delete fails while anyone is queued, so
 *       success proves the holder) and creates the lease node; the lock node's data and mzxid record
 *       the grant in the same transaction. A release through the granting issuer is one transaction
 *       too. CVERSION mode proves the holder by the lock node's child count in the transaction and
 *       writes its grant node after (two round trips to acquire). Everything else (a queue, a
 *       lock-delay, a stale memory of the lock node, a lost answer, found again by the lease node's
 *       protected id) goes the queue-and-watch way. The look for a lost answer's node syncs first:
 *       the client may have reconnected to a server that has not applied the create yet, and a
 *       node missed there would, once applied, block the lock until the session ends. A queued
 *       node that finds an earlier one with its own protected id (Curator re-created it after such
 *       a missed look) deletes that one instead of waiting behind it.</li>
 *   <li>Tokens strictly increase per lock in grant order, across leader elections and restarts:
 *       the lease node's czxid ({@link io.fencegate.issuer.zookeeper.TokenMode#ZXID}, default) or its
 *       sequence + 1 ({@link io.fencegate.issuer.zookeeper.TokenMode#CVERSION}). A root is pinned to
 *       one mode by its first issuer ({@code <root>/token-mode}); an issuer configured for the other
 *       mode is refused on every path (acquire, renew, release) and its idle sweeper does nothing
 *       there, so it can never delete a CVERSION counter.</li>
 *   <li>A lease ends when released through any issuer instance on the ensemble, when its ttl
 *       passes without a renew (the granting issuer's clock deletes the node), or when the
 *       granting issuer's session is lost; listeners hear EXPIRED / SESSION_LOST.</li>
 *   <li>Every grant is recorded durably before it is answered, so {@code wasGranted} is true for
 *       it from any instance: as a node in {@code <root>/grants} (the newest 1000 per lock are
 *       kept, pruned in batches off the hot path), or, for a lock's newest grant taken in one
 *       round trip, on the lock node itself until its release (or the next write to the lock node)
 *       moves it into the log ({@link io.fencegate.issuer.zookeeper.GrantLog}).</li>
 *   <li>Lock-delay: a lease granted with one leaves a mark on its lock node
 *       ({@link io.fencegate.issuer.zookeeper.LockDelays}); after an involuntary end the head of the
 *       queue waits out the delay, a release clears the mark. A release also marks its grant node,
 *       so a watcher ({@code wasReleased}) tells a release from an expiry or a lost session.</li>
 *   <li>Read leases queue with write leases, their nodes named read ({@link
 *       io.fencegate.issuer.zookeeper.Acquisition}): a reader waits only for write nodes before it,
 *       a writer for every node before it, so tokens follow grant order across modes; a read
 *       grant's node says read, so {@code grantedMode} answers it from any instance. A read
 *       acquire is four requests with its release, in three round trips: the read node's create
 *       and the queue's listing go out together (ZooKeeper serves a session's requests in order,
 *       so a listing that shows our node was taken after it; one that does not is taken again),
 *       then the grant record, then the release's one transaction. A fenced
 *       semaphore's permit is an ordinary write lease on a free slot's lock, taken by the head of
 *       the semaphore's FIFO line ({@link io.fencegate.issuer.zookeeper.PermitAcquisition}); its
 *       count is fixed in the semaphore's node by the first acquire.</li>
 *   <li>Listings read the lock nodes and their queue heads; each issuer keeps an ephemeral node in
 *       {@code <root>/instances} so a lease's session names the instance that granted it.</li>
 *   <li>Every ZooKeeper call is bounded by the operation timeout: an unreachable ensemble fails a
 *       call with {@link io.fencegate.issuer.IssuerUnavailableException}, never hangs it.</li>
 * </ul>
 *
 * <h2>Limits</h2>
 * <ul>
 *   <li>An idle lock's nodes are removed by the issuer where its last lease ended, once nobody has
 *       used it for {@code forgetIdleLocksAfter} (default 10 min): its grant log, and in ZXID mode
 *       its lock node. A CVERSION lock node is its token counter and stays forever, so in that mode
 *       the number of nodes grows with the number of distinct lock names ever used. Idleness is
 *       elapsed time on the issuer's monotonic clock, never ZooKeeper's {@code ctime} against the
 *       host's wall clock. Best effort: a lock whose sweep was still pending when its issuer stopped
 *       keeps its nodes.</li>
 *   <li>Expiry runs on the granting issuer: if that process pauses, its leases outlive their ttl
 *       until it resumes or its session expires. Nobody else is granted meanwhile (safe, not live).</li>
 *   <li>CVERSION allows 2^31 grants per lock (ZooKeeper's sequence counter).</li>
 *   <li>Rolling upgrade from issuers without the one-round-trip path: mutual exclusion, tokens and
 *       grants stay safe (the proof of a sole holder is ZooKeeper's own, whoever queued), but a
 *       lock-delay mark an older issuer wrote may be erased by a newer one's one-round-trip grant
 *       on a lock node that was swept and re-created (older issuers do not keep marks off the
 *       version a newer one remembers), and older issuers do not read a grant recorded on a lock
 *       node, so a gateway still running the old version may answer 403 for a token taken in one
 *       round trip until its release logs it. Upgrade every gateway of a root before relying on
 *       lock-delays or cross-gateway writes during the upgrade. The same holds between issuers before
 *       and after the three-op grant (issue 18, second round): a newer issuer remembers a lock node
 *       it released as empty at version 1, where an older issuer's one-trip grant (and its lock-delay
 *       mark) can sit. If such an older lease then expires instead of being released, the newer
 *       issuer's next one-trip grant may re-create the node over that record: the expired holder's
 *       token is refused as "not granted" (403) rather than judged against the item, or its delay is
 *       cut short. Exclusion and tokens stay safe.</li>
 *   <li>Read leases and issuers that predate them, on one root: an older issuer sees a read node as
 *       an exclusive holder or waiter (exclusion stays safe), but does not know a read token from a
 *       write token, so a store behind it would take a write with a read lease's token. Upgrade
 *       every issuer and gateway of a root before granting read leases there.</li>
 * </ul>
 */
package io.fencegate.issuer.zookeeper;
