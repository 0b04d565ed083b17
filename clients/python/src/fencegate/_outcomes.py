"""What a call did, as types: expected outcomes are results, not exceptions."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, Optional, Union


@dataclass(frozen=True)
class Grant:
    """A lease as the gateway granted it: exclusive use of ``lock``, proven to stores by ``token``.

    ``started_at`` is this process's ``time.monotonic()`` taken before the acquire was sent (None
    for a grant built by hand): a keep-alive's first deadline is that moment plus ``ttl``, because
    the gateway cannot have granted the lease earlier.
    """

    lock: str
    lease_id: str
    token: int
    expires_at: datetime
    ttl: Optional[float] = None
    started_at: Optional[float] = field(default=None, compare=False)


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


WriteOutcome = Union[Applied, Stale, AlreadyApplied]
ReadOutcome = Union[Value, NotFound, Stale]
StatementOutcome = Union[Executed, Stale, AlreadyApplied]
