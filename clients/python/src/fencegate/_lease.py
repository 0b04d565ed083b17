"""A lease kept alive by a thread of its own, with a deadline on the monotonic clock.

Why a local deadline as well as the gateway's 410: a holder whose renewals cannot get through, or
whose process was paused (SIGSTOP, a frozen VM, a long GC of a runtime it embeds), must stop before
the gateway hands the lock on, not when it next hears from the gateway. The deadline is the send
time of the last confirmed renewal (at first: of the acquire) plus the ttl, on ``time.monotonic()``,
which neither steps with the wall clock nor stops while the process is paused. So it never falls
after the gateway's own expiry, as long as the gateway's clock does not run faster than this one.
A renewal due after the deadline is not sent: the lease is reported EXPIRED. Writes stay fenced
either way; this is how the holder learns to stop early.
"""
from __future__ import annotations

import enum
import logging
import threading
import time
from datetime import datetime, timezone
from types import TracebackType
from typing import TYPE_CHECKING, Callable, Optional, Type

from ._errors import FencegateError, ProblemError, TransportError
from ._outcomes import Grant

if TYPE_CHECKING:
    from ._client import Client

log = logging.getLogger("fencegate")

MIN_RETRY = 0.02  # seconds between failed renewals, at least


class LeaseLoss(enum.Enum):
    """Why a kept-alive lease was given up. Told once."""

    GONE = "gone"
    """The gateway answered 410 to a renewal: the lease expired there, was released, or its session ended."""
    EXPIRED = "expired"
    """Its ttl passed on this process's monotonic clock since the last confirmed renewal was sent:
    renewals failed (gateway unreachable, 5xx, timeouts) or this process was paused."""
    RENEW_REFUSED = "renew-refused"
    """The gateway refused a renewal with an error that retrying cannot cure (400, 401, 403)."""


class LostSignal:
    """Like a ``threading.Event`` that is set, once, with the reason a lease was lost."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._reason: Optional[LeaseLoss] = None

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        return self._event.wait(timeout)

    @property
    def reason(self) -> Optional[LeaseLoss]:
        """None until the lease is lost."""
        return self._reason

    def __bool__(self) -> bool:
        return self._event.is_set()

    def __repr__(self) -> str:
        return "LostSignal(%s)" % (self._reason.name if self._reason else "not lost")

    def _set(self, reason: LeaseLoss) -> None:
        self._reason = reason
        self._event.set()


class Lease:
    """A lease kept alive until released: renewed every ttl/3 on a daemon thread of its own.

    ``token`` goes with every write and fenced read. ``held`` is true while the lease is neither
    lost nor released and its deadline has not passed; ``lost`` is set once, with the reason, when
    the lease is lost (``on_lost`` is called then, on the keep-alive thread, and one warning is
    logged on the ``fencegate`` logger). Made by :meth:`Client.lease` and :meth:`Client.keep_alive`;
    as a context manager it releases the lease however the block ends.
    """

    def __init__(self, client: "Client", grant: Grant, ttl: float,
                 on_lost: Optional[Callable[["Lease", LeaseLoss], None]] = None) -> None:
        self.grant = grant
        self.ttl = ttl
        self.lost = LostSignal()
        self.last_error: Optional[BaseException] = None
        self._client = client
        self._on_lost = on_lost
        self._mutex = threading.Lock()
        self._stop = threading.Event()
        self._closed = False
        now = time.monotonic()
        if grant.started_at is not None:
            # The gateway granted the lease no earlier than the acquire was sent.
            self._deadline = grant.started_at + ttl
        else:
            # A grant built by hand: trust the gateway's expiry, but never beyond one ttl from now.
            until_expiry = grant.expires_at.timestamp() - datetime.now(timezone.utc).timestamp()
            self._deadline = now + max(0.0, min(until_expiry, ttl))
        # First renewal at ttl/3 after the acquire; a grant built by hand is renewed at once.
        self._next_renewal = now if grant.started_at is None else grant.started_at + ttl / 3
        if grant.started_at is not None and self._deadline <= now:
            # Answered after the whole ttl had run out since the acquire's send (a wait longer than
            # the ttl, or a pause): only a renewal sent now can show the lease is still ours.
            self._renew_once()
        self._thread = threading.Thread(target=self._run, name="fencegate-lease-" + grant.lock, daemon=True)
        self._thread.start()

    # ---- what the holder reads ---------------------------------------------------------------

    @property
    def token(self) -> int:
        """The fencing token: send it with every write and fenced read."""
        return self.grant.token

    @property
    def lock(self) -> str:
        return self.grant.lock

    @property
    def lease_id(self) -> str:
        return self.grant.lease_id

    @property
    def mode(self) -> str:
        """``"write"`` (exclusive) or ``"read"`` (shared; its token never writes)."""
        return self.grant.mode

    @property
    def slot(self) -> Optional[int]:
        """The semaphore slot a permit holds (``lock`` is its lock), None for any other lease."""
        return self.grant.slot

    @property
    def held(self) -> bool:
        """True while neither lost nor released and the deadline has not passed. Finding it passed
        reports the loss here and now: after a pause the holder's own thread often wakes first."""
        self._report_if_expired()
        with self._mutex:
            return not self._closed and not self.lost.is_set() and time.monotonic() < self._deadline

    @property
    def remaining(self) -> float:
        """Seconds the lease surely lasts without another renewal; 0 once lost or released."""
        with self._mutex:
            if self._closed or self.lost.is_set():
                return 0.0
            return max(0.0, self._deadline - time.monotonic())

    def release(self) -> bool:
        """Stops renewing and releases the lease. True if this released it, False if it was lost or
        already released. After a loss the release is still tried (it frees the lock sooner) and its
        failure ignored; otherwise a failed release raises."""
        self._report_if_expired()  # a lease that ended before its release is a lost one, and is told so
        with self._mutex:
            if self._closed:
                return False
            self._closed = True
        self._stop.set()
        if not self.lost.is_set():
            return self._client.release(self.lease_id)
        if self.lost.reason is not LeaseLoss.GONE:
            try:
                self._client.release(self.lease_id)
            except FencegateError:
                pass  # over for us either way; the gateway ends it at its ttl
        return False

    close = release

    def __enter__(self) -> "Lease":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        if exc is None:
            self.release()
            return
        try:
            self.release()
        except FencegateError as failed:  # the block's own exception is the one to see
            log.warning("release of lease %s of %s failed after the block raised: %s", self.lease_id, self.lock, failed)

    def __repr__(self) -> str:
        return "Lease(lock=%r, token=%d, held=%s, lost=%r)" % (self.lock, self.token, self.held, self.lost)

    # ---- the keep-alive thread -----------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._mutex:
                if self._closed or self.lost.is_set():
                    return
                deadline = self._deadline
                due = self._next_renewal
            now = time.monotonic()
            if now >= deadline:
                self._lose(LeaseLoss.EXPIRED)
                return
            if now < due:
                # Wake at the renewal, or at the deadline if that comes first, to report it on time.
                if self._stop.wait(min(due, deadline) - now):
                    return
                continue
            self._renew_once()

    def _renew_once(self) -> None:
        with self._mutex:
            if self._closed or self.lost.is_set():
                return
            deadline = self._deadline
        sent_at = time.monotonic()
        if sent_at >= deadline:
            self._lose(LeaseLoss.EXPIRED)  # too late: the gateway may already have handed the lock on
            return
        try:
            # Bounded by the deadline: an answer after it could not keep the lease trusted anyway.
            expires = self._client._renew(self.lease_id, min(self._client.timeout, deadline - sent_at))
        except ProblemError as e:
            if not e.retryable:
                self.last_error = e
                self._lose(LeaseLoss.RENEW_REFUSED)
                return
            self._retry_soon(e)
            return
        except TransportError as e:
            self._retry_soon(e)
            return
        if expires is None:
            self._lose(LeaseLoss.GONE)
            return
        with self._mutex:
            if self._closed or self.lost.is_set():
                return
            self.last_error = None
            self._deadline = max(self._deadline, sent_at + self.ttl)
            self._next_renewal = sent_at + self.ttl / 3

    def _retry_soon(self, error: BaseException) -> None:
        """Transient (unreachable, timeout, 5xx): try again soon; the deadline ends it in time."""
        with self._mutex:
            self.last_error = error
            self._next_renewal = time.monotonic() + max(MIN_RETRY, self.ttl / 10)

    def _report_if_expired(self) -> None:
        with self._mutex:
            expired = not self._closed and not self.lost.is_set() and time.monotonic() >= self._deadline
        if expired:
            self._lose(LeaseLoss.EXPIRED)

    def _lose(self, reason: LeaseLoss) -> None:
        with self._mutex:
            if self._closed or self.lost.is_set():
                return  # told once: the first reason wins
            self.lost._set(reason)
        self._stop.set()
        log.warning("lease %s of %s (token %d) lost: %s%s", self.lease_id, self.lock, self.token, reason.name,
                    "" if self.last_error is None else " (last error: %s)" % self.last_error)
        if self._on_lost is not None:
            try:
                self._on_lost(self, reason)
            except Exception:  # a listener's bug must not kill the keep-alive silently
                log.exception("on_lost for lease %s of %s raised", self.lease_id, self.lock)
