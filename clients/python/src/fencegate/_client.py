"""The client: one method per call of the gateway's HTTP API."""
from __future__ import annotations

import json
import ssl
import time
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Mapping, Optional, Sequence

from . import _checks as check
from ._errors import ConnectFailed, LockHeld, ProblemError, TransportError
from ._http import Answer, Transport
from ._group import LeaseGroup
from ._lease import Lease, LeaseLoss
from ._outcomes import (AlreadyApplied, Applied, ClaimOutcome, Executed, Grant, GroupGrant, NotFound,
                        ReadOutcome, Stale, StatementOutcome, Value, WriteOutcome)
from ._transaction import TokensByKey, Transaction, claim_body, claimed

OnLost = Callable[[Lease, LeaseLoss], None]
OnGroupLost = Callable[[LeaseGroup, LeaseLoss], None]


class Client:
    """A client for the fencegate gateway's HTTP API. Thread-safe: build one and share it.

    Expected outcomes are results, not exceptions: a held lock is ``None`` from :meth:`acquire`, a
    refused token a :class:`Stale`. Other errors raise :class:`ProblemError` (the gateway's
    problem+json) or :class:`TransportError` (no answer; :class:`ConnectFailed` when nothing was
    sent, :class:`CallTimedOut` after ``timeout`` seconds). Bad arguments raise ``ValueError`` or
    ``TypeError`` before anything is sent. Every call is bounded by ``timeout`` (an acquire by
    ``timeout`` plus its ``wait``).
    """

    def __init__(self, url: str, api_key: Optional[str] = None, timeout: float = 10.0,
                 ssl_context: Optional[ssl.SSLContext] = None) -> None:
        self.timeout = check.seconds(timeout, "timeout", 0)
        self._transport = Transport(url, api_key, ssl_context)

    def __repr__(self) -> str:
        return "fencegate.Client(%r)" % self._transport.url

    # ---- leases ----------------------------------------------------------------------------

    def acquire(self, lock: str, ttl: float, wait: float = 0, mode: str = "write") -> Optional[Grant]:
        """Acquires ``lock`` for ``ttl`` seconds, waiting up to ``wait``; None if still held then (423).

        ``mode="read"`` takes a read lease, shared with other read leases and never with a write
        lease: its token makes fenced reads, and every write with it is refused (403 ``read-token``).
        Nothing renews the grant: use :meth:`lease`, or :meth:`keep_alive` on the grant.
        """
        check.text(lock, "lock")
        mode = check.mode(mode)
        body = {"lock": lock} if mode == "write" else {"lock": lock, "mode": mode}
        return self._acquire(body, lock, ttl, wait)

    def acquire_permit(self, semaphore: str, permits: int, ttl: float, wait: float = 0) -> Optional[Grant]:
        """Takes one of the ``permits`` permits of the semaphore ``semaphore`` for ``ttl`` seconds,
        waiting up to ``wait`` (first come, first served); None if no permit is free then (423).

        A permit is a write lease on the lock of a free slot: the grant's ``slot`` is ``k`` in
        ``0..permits-1`` and its ``lock`` is ``{semaphore}/{k}``, guarding that item. The count is
        fixed by the semaphore's first acquire; another count raises :class:`ProblemError` (400).
        """
        check.text(semaphore, "semaphore")
        permits = check.permits(permits)
        return self._acquire({"lock": semaphore, "permits": permits}, semaphore, ttl, wait)

    def _acquire(self, request: Dict[str, Any], lock: str, ttl: float, wait: float) -> Optional[Grant]:
        ttl = check.seconds(ttl, "ttl", check.MIN_TTL)
        wait = check.seconds(wait, "wait", 0, allow_zero=True)
        body = json.dumps(dict(request, ttlMs=check.millis(ttl), waitMs=check.millis(wait))).encode()
        # Taken before the request goes out: the gateway cannot have granted the lease earlier, so
        # a keep-alive's first deadline counts from here.
        started_at = time.monotonic()
        answer = self._call("POST", "/v1/leases", self.timeout + wait, body, {"Content-Type": "application/json"})
        if answer.status == 423:
            return None
        if answer.status != 201:
            raise _problem(answer)
        j = _json(answer)
        try:
            slot = j.get("slot")
            if "permits" in request and (isinstance(slot, bool) or not isinstance(slot, int)):
                raise ValueError("a permit without its slot")
            return Grant(lock=str(j.get("lock", lock)), lease_id=str(j["leaseId"]), token=check.token(j["token"]),
                         expires_at=_instant(j.get("expiresAt")), ttl=ttl, started_at=started_at,
                         mode=check.mode(j.get("mode", "write")), slot=slot)
        except (KeyError, TypeError, ValueError) as e:
            raise ProblemError(answer.status, "about:blank", "unreadable response",
                               "not a lease: %r (%s)" % (answer.body[:200], e)) from e

    def renew(self, lease_id: str) -> Optional[datetime]:
        """Extends the lease to now + its ttl: the new expiry, or None if the lease is gone (410)."""
        return self._renew(lease_id, self.timeout)

    def release(self, lease_id: str) -> bool:
        """Releases the lease; False if it was already gone (410)."""
        check.text(lease_id, "lease_id")
        answer = self._call("DELETE", "/v1/leases/" + check.segment(lease_id), self.timeout)
        if answer.status in (200, 204):
            return True
        if answer.status == 410:
            return False
        raise _problem(answer)

    def keep_alive(self, grant: Grant, ttl: Optional[float] = None, on_lost: Optional[OnLost] = None) -> Lease:
        """Keeps ``grant`` alive until :meth:`Lease.release`: renews at ttl/3, and tells ``on_lost``
        (and ``lease.lost``) once if the lease is lost. ``ttl`` defaults to the one it was acquired with."""
        if not isinstance(grant, Grant):
            raise TypeError("grant must be a fencegate.Grant, got %s" % type(grant).__name__)
        if ttl is None:
            if grant.ttl is None:
                raise ValueError("ttl is required for a grant built by hand")
            ttl = grant.ttl
        ttl = check.seconds(ttl, "ttl", check.MIN_TTL)
        if on_lost is not None and not callable(on_lost):
            raise TypeError("on_lost must be callable")
        return Lease(self, grant, ttl, on_lost)

    def lease(self, lock: str, ttl: float, wait: float = 0, on_lost: Optional[OnLost] = None,
              mode: str = "write") -> Lease:
        """Acquires ``lock`` (waiting up to ``wait`` seconds) and keeps it alive; raises
        :class:`LockHeld` if it is still held then. Use it in a ``with`` block, which releases it
        however the block ends::

            with client.lease("main/stock/widget", ttl=10, wait=5) as lease:
                client.put("main", "stock/widget", b"0", token=lease.token)

        ``mode="read"`` keeps a read lease (see :meth:`acquire`): shared, fenced reads only.
        """
        grant = self.acquire(lock, ttl, wait, mode)
        if grant is None:
            raise LockHeld(423, "urn:fencegate:problem:lock-held", "Locked",
                           "lock %r is still held after waiting %g s" % (lock, wait))
        return self.keep_alive(grant, ttl, on_lost)

    def permit(self, semaphore: str, permits: int, ttl: float, wait: float = 0,
               on_lost: Optional[OnLost] = None) -> Lease:
        """Takes a permit of ``semaphore`` (see :meth:`acquire_permit`) and keeps it alive as
        :meth:`lease` does; raises :class:`LockHeld` if no permit is free after ``wait``. Writes go
        to the slot's item with the permit's token::

            with client.permit("main/pool", permits=3, ttl=10, wait=5) as permit:
                client.put("main", "pool/%d" % permit.slot, b"busy", token=permit.token)
        """
        grant = self.acquire_permit(semaphore, permits, ttl, wait)
        if grant is None:
            raise LockHeld(423, "urn:fencegate:problem:lock-held", "Locked",
                           "no free permit of %r after waiting %g s" % (semaphore, wait))
        return self.keep_alive(grant, ttl, on_lost)

    def acquire_all(self, locks: Sequence[str], ttl: float, wait: float = 0) -> Optional[GroupGrant]:
        """Acquires every lock in ``locks`` or none (1 to 8 distinct names), waiting up to ``wait``
        seconds in all; None if one is still held then (423), and then nothing is held. The gateway
        takes them in one canonical order, so groups that cross never deadlock. Nothing renews the
        grant: use :meth:`leases`, or renew and release its ``group_id`` as a lease id."""
        locks = check.locks(locks)
        ttl = check.seconds(ttl, "ttl", check.MIN_TTL)
        wait = check.seconds(wait, "wait", 0, allow_zero=True)
        body = json.dumps({"locks": locks, "ttlMs": check.millis(ttl), "waitMs": check.millis(wait)}).encode()
        started_at = time.monotonic()
        # The locks are taken one after another: the bound is the wait plus a timeout per lock.
        answer = self._call("POST", "/v1/leases", self.timeout * len(locks) + wait, body,
                            {"Content-Type": "application/json"})
        if answer.status == 423:
            return None
        if answer.status != 201:
            raise _problem(answer)
        j = _json(answer)
        try:
            grants = tuple(Grant(lock=str(m["lock"]), lease_id=str(m["leaseId"]), token=check.token(m["token"]),
                                 expires_at=_instant(m.get("expiresAt")), ttl=ttl, started_at=started_at)
                           for m in j["leases"])
            if sorted(g.lock for g in grants) != sorted(locks):
                raise ValueError("granted %s for %s" % ([g.lock for g in grants], locks))
            return GroupGrant(group_id=str(j["groupId"]), grants=grants, ttl=ttl, started_at=started_at)
        except (KeyError, TypeError, ValueError) as e:
            raise ProblemError(answer.status, "about:blank", "unreadable response",
                               "not a lease group: %r (%s)" % (answer.body[:200], e)) from e

    def leases(self, locks: Sequence[str], ttl: float, wait: float = 0,
               on_lost: Optional[OnGroupLost] = None) -> LeaseGroup:
        """:meth:`lease` for several locks: acquires every one or none (waiting up to ``wait``) and
        keeps the group alive as one lease; raises :class:`LockHeld` if a lock is still held then.
        Each write carries its own lock's token::

            with client.leases(["main/stock/a", "main/stock/b"], ttl=10, wait=5) as group:
                client.transaction("main").put("stock/a", b"3", token=group.token("main/stock/a")) ...
        """
        if on_lost is not None and not callable(on_lost):
            raise TypeError("on_lost must be callable")
        grant = self.acquire_all(locks, ttl, wait)
        if grant is None:
            raise LockHeld(423, "urn:fencegate:problem:lock-held", "Locked",
                           "a lock of %s is still held after waiting %g s" % (list(locks), wait))
        try:
            return LeaseGroup(self, grant, check.seconds(ttl, "ttl", check.MIN_TTL), on_lost)
        except BaseException:
            self.release(grant.group_id)
            raise

    def _renew(self, lease_id: str, timeout: float) -> Optional[datetime]:
        check.text(lease_id, "lease_id")
        answer = self._call("POST", "/v1/leases/" + check.segment(lease_id) + "/renew", timeout)
        if answer.status == 200:
            return _instant(_json(answer).get("expiresAt"))
        if answer.status == 410:
            return None
        raise _problem(answer)

    # ---- items -----------------------------------------------------------------------------

    def get(self, store: str, key: str, *, token: Optional[int] = None) -> ReadOutcome:
        """Reads an item. With ``token`` it is a fenced read: it raises the item's fence to the token,
        so no lower token can write it any more (a missing item is claimed too), or answers
        :class:`Stale` if a higher token got there first. Without one it claims nothing."""
        path = self._item(store, key)
        headers = {} if token is None else {"Fencing-Token": str(check.token(token))}
        answer = self._call("GET", path, self.timeout, headers=headers)
        if answer.status == 200:
            written = answer.headers.get("fencing-token", "")
            return Value(answer.body, int(written) if written.isdigit() else 0)
        if answer.status == 404 and _missing_item(answer):
            return NotFound()
        if answer.status == 409 and token is not None:
            j = _json(answer)
            current = int(j.get("currentToken", 0))
            return Stale(current, int(j.get("fence", current)), token)
        raise _problem(answer)

    def put(self, store: str, key: str, value: Any, *, token: int, retries: int = 0) -> WriteOutcome:
        """Writes ``value`` (bytes, or str as UTF-8) to ``key`` if ``token`` passes the store's guard.

        ``retries``: how often to send the write again, with the same token, when it got no answer
        or a 408, 429 or 5xx (it may have applied). A retry answered 409 whose ``currentToken`` is
        this token means an earlier attempt applied: :class:`AlreadyApplied`. Safe under the default
        ``strict`` rule, where a token writes an item once.
        """
        path = self._item(store, key)
        data = check.body(value)
        check.token(token)
        return self._guarded("PUT", path, token, retries, data, "application/octet-stream")

    def delete(self, store: str, key: str, *, token: int, retries: int = 0) -> WriteOutcome:
        """Deletes ``key``; the store keeps a tombstone with the token, so no lower token revives it.
        ``retries`` as for :meth:`put`."""
        path = self._item(store, key)
        check.token(token)
        return self._guarded("DELETE", path, token, retries)

    def statement(self, store: str, name: str, *, key: str, token: int,
                  params: Optional[Mapping[str, Any]] = None, retries: int = 0) -> StatementOutcome:
        """Runs the store's named statement in one transaction with the guard row of ``key``.
        ``retries`` as for :meth:`put` (under ``same-lease`` a retried statement may run twice)."""
        check.text(store, "store")
        check.text(name, "name")
        check.key(key)
        check.token(token)
        if params is None:
            params = {}
        if not isinstance(params, Mapping) or not all(isinstance(k, str) for k in params):
            raise TypeError("params must be a mapping with str keys")
        try:
            body = json.dumps({"key": key, "params": dict(params)}, allow_nan=False).encode()
        except (TypeError, ValueError) as e:
            raise TypeError("params must be JSON values: %s" % e) from e
        path = "/v1/stores/%s/statements/%s" % (check.segment(store), check.segment(name))
        return self._guarded("POST", path, token, retries, body, "application/json")  # type: ignore[return-value]

    def transaction(self, store: str) -> Transaction:
        """Puts and deletes of several items of ``store``, each with its own token, applied together
        or not at all: add them, then :meth:`Transaction.commit`. SQL stores only (the files store
        refuses it with a :class:`ProblemError`)."""
        return Transaction(self, store)

    def get_all(self, store: str, tokens: TokensByKey) -> ClaimOutcome:
        """Fenced reads of several items in one call, ``tokens`` mapping each key to its token:
        every item's fence is raised to its token and the items answered (:class:`Claimed`), or, if
        any item has a higher fence, none is (:class:`Refused`, naming every such item)."""
        check.text(store, "store")
        return claimed(self._post_items(store, "fenced-reads", claim_body(tokens)))

    def _post_items(self, store: str, route: str, body: Dict[str, Any]) -> Answer:
        path = "/v1/stores/%s/%s" % (check.segment(store), route)
        return self._call("POST", path, self.timeout, json.dumps(body).encode(), {"Content-Type": "application/json"})

    def _guarded(self, method: str, path: str, token: int, retries: int, body: Optional[bytes] = None,
                 content_type: Optional[str] = None) -> Any:
        """One guarded call, sent again up to ``retries`` times while its outcome is unknown."""
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError("retries must be an int >= 0, got %r" % (retries,))
        headers = {"Fencing-Token": str(token)}
        if content_type:
            headers["Content-Type"] = content_type
        maybe_sent = False  # whether an earlier attempt may have reached the gateway
        for attempt in range(retries + 1):
            if attempt:
                time.sleep(min(1.0, 0.05 * 2 ** attempt))
            try:
                answer = self._call(method, path, self.timeout, body, headers)
            except ConnectFailed:
                if attempt == retries:
                    raise
                continue
            except TransportError:
                maybe_sent = True
                if attempt == retries:
                    raise
                continue
            if answer.status in (408, 429) or answer.status >= 500:
                maybe_sent = maybe_sent or answer.status != 429
                if attempt < retries:
                    continue
            if answer.status == 200 and method == "POST":
                j = _json(answer)
                rows = j.get("rows", 0)
                return Executed(token, int(rows) if isinstance(rows, (int, float)) else 0, j)
            return _write_outcome(answer, token, maybe_sent)
        raise AssertionError("unreachable")

    # ---- plumbing --------------------------------------------------------------------------

    @staticmethod
    def _item(store: str, key: str) -> str:
        check.text(store, "store")
        check.key(key)
        return "/v1/stores/%s/items/%s" % (check.segment(store), check.key_path(key))

    def _call(self, method: str, path: str, timeout: float, body: Optional[bytes] = None,
              headers: Optional[Dict[str, str]] = None) -> Answer:
        return self._transport.exchange(method, path, timeout, body, headers)


def _write_outcome(answer: Answer, token: int, retried: bool) -> WriteOutcome:
    if answer.status == 200:
        j = _json(answer)
        return Applied(int(j.get("token", token)), int(j.get("previousToken", 0)))
    if answer.status == 409:
        j = _json(answer)
        current = int(j.get("currentToken", 0))
        fence = int(j.get("fence", current))
        if retried and current == token:
            # Only after an attempt that may have applied: on a first attempt the same 409 means
            # an earlier, different write of this token (under strict, one write per token).
            return AlreadyApplied(token, fence)
        return Stale(current, fence, token)
    raise _problem(answer)


def _missing_item(answer: Answer) -> bool:
    """A 404 for an unknown store or route must not read as a missing item."""
    if not answer.content_type.startswith("application/problem+json"):
        return True
    try:
        kind = str(json.loads(answer.body.decode("utf-8")).get("type", ""))
    except (ValueError, UnicodeDecodeError, AttributeError):
        return True
    return kind.endswith(":not-found") or kind in ("", "about:blank")


def _json(answer: Answer) -> Dict[str, Any]:
    try:
        parsed = json.loads(answer.body.decode("utf-8")) if answer.body else {}
    except (ValueError, UnicodeDecodeError):
        parsed = None
    if not isinstance(parsed, dict):
        raise ProblemError(answer.status, "about:blank", "unreadable response",
                           "not a JSON object: %r" % answer.body[:200])
    return parsed


def _problem(answer: Answer) -> ProblemError:
    return ProblemError.from_answer(answer.status, answer.content_type, answer.body)


def _instant(epoch_millis: Any) -> datetime:
    return datetime.fromtimestamp(int(epoch_millis or 0) / 1000, tz=timezone.utc)
