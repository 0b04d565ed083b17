"""A lease group kept alive as one lease: the gateway renews and releases it by its group id."""
from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Type

from ._lease import Lease, LeaseLoss, LostSignal
from ._outcomes import Grant, GroupGrant

if TYPE_CHECKING:
    from ._client import Client


class LeaseGroup:
    """Leases on several locks, held together: renewed every ttl/3 by the group id, trusted until
    the same monotonic deadline a :class:`Lease` keeps, and released together. The gateway answers a
    renewal 410 as soon as any member is gone, so losing one lock loses the group: ``held`` turns
    false and ``lost`` is set once, with the reason. Each lock has a token of its own
    (:meth:`token`): send it with the writes guarded by that lock. Made by :meth:`Client.leases`;
    as a context manager it releases every member however the block ends.
    """

    def __init__(self, client: "Client", grant: GroupGrant, ttl: float,
                 on_lost: Optional[Callable[["LeaseGroup", LeaseLoss], None]] = None) -> None:
        self.grant = grant
        # The group id stands where a lease id goes; the acquire's send time counts for every member.
        first = grant.grants[0]
        as_one = Grant(lock=", ".join(grant.locks), lease_id=grant.group_id, token=first.token,
                       expires_at=grant.expires_at, ttl=ttl, started_at=grant.started_at)
        told = None if on_lost is None else (lambda _lease, reason: on_lost(self, reason))
        self._lease = Lease(client, as_one, ttl, told)

    @property
    def group_id(self) -> str:
        return self.grant.group_id

    @property
    def locks(self) -> List[str]:
        return self.grant.locks

    @property
    def tokens(self) -> Dict[str, int]:
        """Lock to token, for every member."""
        return self.grant.tokens

    def token(self, lock: str) -> int:
        """The token of ``lock``'s lease; KeyError if the group holds no lease on it."""
        return self.grant.token(lock)

    @property
    def held(self) -> bool:
        """As :attr:`Lease.held`, for the whole group."""
        return self._lease.held

    @property
    def lost(self) -> LostSignal:
        return self._lease.lost

    @property
    def remaining(self) -> float:
        return self._lease.remaining

    @property
    def last_error(self) -> Optional[BaseException]:
        return self._lease.last_error

    def release(self) -> bool:
        """Stops renewing and releases every member: True if this released them all, as :meth:`Lease.release`."""
        return self._lease.release()

    close = release

    def __enter__(self) -> "LeaseGroup":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self._lease.__exit__(exc_type, exc, tb)

    def __repr__(self) -> str:
        return "LeaseGroup(tokens=%r, held=%s, lost=%r)" % (self.tokens, self.held, self.lost)
