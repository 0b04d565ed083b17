"""What a call did, as types: expected outcomes are results, not exceptions."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, List, Optional, Tuple, Union


@dataclass(frozen=True)
class Grant:
    """A lease as the gateway granted it: exclusive use of ``lock``, proven to stores by ``token``.

    ``started_at`` is this process's ``time.monotonic()`` taken before the acquire was sent (None
    for a grant built by hand): a keep-alive's first deadline is that moment plus ``ttl``, because
    the gateway cannot have granted the lease earlier.

    ``mode`` is ``"write"`` (exclusive) or ``"read"`` (shared with other read leases; its token
    makes fenced reads and is refused 403 ``read-token`` on every write). ``slot`` is the slot a
    semaphore permit took (``lock`` is then the slot's lock, ``{semaphore}/{slot}``), else None.
    """

    lock: str
    lease_id: str
    token: int
    expires_at: datetime
    ttl: Optional[float] = None
    started_at: Optional[float] = field(default=None, compare=False)
    mode: str = "write"
    slot: Optional[int] = None


@dataclass(frozen=True)
class Applied:
    """The write took effect; ``previous_token`` wrote the value it replaced (0 if none)."""

    token: int
    previous_token: int
    applied = True


@dataclass(frozen=True)
class Stale:
    """409: a higher token has written or claimed the item; stop, never retry with this token.

    ``current_token`` wrote the item last (0 if none); ``fence`` is the highest token that claimed it.
    """

    current_token: int
    fence: int
    attempted_token: int
    applied = False

    @property
    def already_applied(self) -> bool:
        """The item's last write carries this call's own token. If this call repeated one whose
        answer was lost (a timeout, a 5xx), that one applied; otherwise this token had already
        written the item and, under ``strict``, may not write it again."""
        return self.current_token == self.attempted_token


@dataclass(frozen=True)
class AlreadyApplied:
    """A retried call whose earlier attempt applied: the retry was answered 409 with this call's
    own token as the item's ``currentToken``. Only returned after a retry (``retries=``) of an
    attempt that may have reached the gateway (a lost answer, a timeout, a 408 or 5xx)."""

    token: int
    fence: int
    applied = True


@dataclass(frozen=True)
class Value:
    """An item's bytes and the token of its last write."""

    value: bytes
    token: int

    @property
    def text(self) -> str:
        return self.value.decode("utf-8")


@dataclass(frozen=True)
class NotFound:
    """No such item (or a tombstone). A fenced read still claimed it."""


@dataclass(frozen=True)
class Executed:
    """A named statement ran in one transaction with its key's guard row."""

    token: int
    rows: int
    body: Dict[str, Any]
    applied = True


@dataclass(frozen=True)
class GroupGrant:
    """Leases on several locks granted together, all or none: one :class:`Grant` per lock, each with
    a token from its own lock's sequence. ``group_id`` renews, releases and watches the whole group
    where a lease id goes; ``grants`` are in the gateway's canonical order (UTF-8 byte order)."""

    group_id: str
    grants: Tuple[Grant, ...]
    ttl: Optional[float] = None
    started_at: Optional[float] = field(default=None, compare=False)

    @property
    def locks(self) -> List[str]:
        return [g.lock for g in self.grants]

    @property
    def tokens(self) -> Dict[str, int]:
        """Lock to token: send each lock's token with writes guarded by that lock."""
        return {g.lock: g.token for g in self.grants}

    def token(self, lock: str) -> int:
        """The token of ``lock``'s lease; KeyError if the group holds no lease on it."""
        for g in self.grants:
            if g.lock == lock:
                return g.token
        raise KeyError("the group holds no lease on %r (it holds %s)" % (lock, ", ".join(self.locks)))

    @property
    def expires_at(self) -> datetime:
        """The earliest member's expiry: the group's."""
        return min(g.expires_at for g in self.grants)


@dataclass(frozen=True)
class Committed:
    """A transaction applied every put and delete together: by key, in the order they were added."""

    items: Dict[str, Applied]
    applied = True


@dataclass(frozen=True)
class Claimed:
    """A fenced multi-read raised every item's fence to its token: by key, in the order given, a
    :class:`Value` or a :class:`NotFound` (a missing item is claimed too)."""

    items: Dict[str, Union[Value, NotFound]]
    applied = True


@dataclass(frozen=True)
class Refused:
    """409: at least one item's guard refused its token, so nothing was applied and no fence raised.
    ``items`` names every refused item by key, in request order, with why (:class:`Stale`: its
    ``current_token`` and ``fence``)."""

    items: Dict[str, Stale]
    applied = False


WriteOutcome = Union[Applied, Stale, AlreadyApplied]
ReadOutcome = Union[Value, NotFound, Stale]
StatementOutcome = Union[Executed, Stale, AlreadyApplied]
TransactionOutcome = Union[Committed, Refused]
ClaimOutcome = Union[Claimed, Refused]
