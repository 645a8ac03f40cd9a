"""Index requests handed to the run that is embedding, instead of waiting for it to finish.

A long run (a first index, a forced one) holds the writer lock through its embedding phase, which
can last an hour. Meanwhile a saved or changed file (a server's save hook or watcher, ``follow``,
another thread's ``Brain.index(path)``) is handed to that run: between two embedding batches it
analyses the file, publishes a generation with its new chunks in keyword and graph search, and
queues their texts for embedding. The requester waits only for that publish. One writer still writes.

Only runs of this process can take a request (the hand-over is in memory); a run in another process
is waited for as before.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .types import IndexCancelled, IndexReport


@dataclass
class Ticket:
    """One request: root-relative ``paths`` (files or folders). ``report`` or ``error`` once served;
    ``refused`` when the run ended before it could serve it (the requester then runs on its own)."""

    paths: tuple[str, ...]
    done: threading.Event = field(default_factory=threading.Event)
    report: IndexReport | None = None
    error: BaseException | None = None
    refused: bool = False

    def wait(self, cancel: threading.Event | None = None) -> IndexReport | None:
        """The report of the publish that served it; None if refused; raises the run's error, or
        IndexCancelled when ``cancel`` is set first."""
        while not self.done.wait(0.1):
            if cancel is not None and cancel.is_set():
                raise IndexCancelled("indexing was cancelled; the last generation keeps serving")
        if self.error is not None:
            raise self.error
        return self.report


class Merges:
    """The hand-over point between requesters and the run that is embedding (at most one per Brain)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = False
        self._tickets: list[Ticket] = []

    @property
    def accepting(self) -> bool:
        """Whether a run is embedding and takes requests now."""
        with self._lock:
            return self._open

    @property
    def waiting(self) -> int:
        """Requests handed over and not yet taken by the run."""
        with self._lock:
            return len(self._tickets)

    def offer(self, paths: tuple[str, ...]) -> Ticket | None:
        """Hand ``paths`` to the embedding run; None when no run takes requests."""
        with self._lock:
            if not self._open:
                return None
            ticket = Ticket(paths)
            self._tickets.append(ticket)
            return ticket

    def open(self) -> None:
        with self._lock:
            self._open = True

    def take(self) -> list[Ticket]:
        """The requests waiting now (the run serves them together, in one publish)."""
        with self._lock:
            tickets, self._tickets = self._tickets, []
            return tickets

    def close(self) -> None:
        """The run stops taking requests; those not served are refused (their requesters run alone)."""
        with self._lock:
            self._open = False
            tickets, self._tickets = self._tickets, []
        for ticket in tickets:
            ticket.refused = True
            ticket.done.set()
