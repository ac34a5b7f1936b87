"""The live feed in Python: a subscriber over Aeron, its events as dictionaries, its books as price levels.

Every event is one line of the conformance suite's canonical text (conformance/README.md), the same for every SDK,
read into a dictionary: ``type`` (the template's name, or ``JOINED``, ``GAP``, ``HEARTBEAT``, ``STALE``,
``RECOVERED``, ``NEW_DAY``) and every field by its schema name, numbers as ``int``, character fields as ``str`` (their
padding kept), stale reasons as ``str``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping

from ._mdfanout import Replay as _Replay
from ._mdfanout import Subscriber as _Subscriber
from ._mdfanout import conformance_run

if TYPE_CHECKING:
    import pandas

__all__ = ["Book", "Replay", "Subscriber", "dispatch", "parse_books", "parse_event", "read_events", "to_dataframe"]

Handler = Callable[[dict[str, int | str]], None]


def _unquote(text: str, at: int) -> tuple[str, int]:
    """The quoted field starting at ``text[at] == '"'``: its value and the index after the closing quote."""
    out = []
    i = at + 1
    while i < len(text):
        c = text[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\" and text.startswith("\\x", i) and i + 4 <= len(text):
            out.append(chr(int(text[i + 2:i + 4], 16)))
            i += 4
            continue
        out.append(c)
        i += 1
    raise ValueError(f"unterminated quoted field in: {text!r}")


def parse_event(line: str) -> dict[str, int | str]:
    """One canonical line as a dictionary: ``type`` and every ``name=value`` field, in order.

    >>> parse_event('TradingStatus p=0 ss=3 sent=1 xs=3 ts=2 inst=2 tradingState=84 reason="    "')["reason"]
    '    '
    """
    space = line.find(" ")
    if space <= 0:
        if not line:
            raise ValueError("an empty line is no event")
        return {"type": line}
    event: dict[str, int | str] = {"type": line[:space]}
    i = space + 1
    while i < len(line):
        equals = line.find("=", i)
        if equals < 0:
            raise ValueError(f"no name=value at {i} in: {line!r}")
        name = line[i:equals]
        if equals + 1 < len(line) and line[equals + 1] == '"':
            value, i = _unquote(line, equals + 1)
            event[name] = value
        else:
            end = line.find(" ", equals + 1)
            end = len(line) if end < 0 else end
            raw = line[equals + 1:end]
            try:
                event[name] = int(raw)
            except ValueError:
                if not raw or raw.strip("ABCDEFGHIJKLMNOPQRSTUVWXYZ_"):
                    raise ValueError(f"{name}={raw} is neither a number nor a name in: {line!r}") from None
                event[name] = raw  # a name: a stale reason
            i = end
        if i < len(line):
            if line[i] != " ":
                raise ValueError(f"no space after {name} in: {line!r}")
            i += 1
    return event


def read_events(case: bytes) -> list[dict[str, int | str]]:
    """Every event a recorded packet stream (a conformance case file's bytes, conformance/README.md) delivers, in order,
    as the live client would deliver it."""
    events = []
    for line in conformance_run(case).splitlines():
        if line.startswith("COUNTERS "):
            break
        events.append(parse_event(line))
    return events


def to_dataframe(events: Iterable[dict[str, int | str]], types: Iterable[str] | None = None) -> "pandas.DataFrame":
    """Events as a pandas DataFrame: a row per event (only those whose ``type`` is in ``types``, when given), a column
    per field in the order first seen (``type``, ``p``, ``ss``, ``sent``, ``xs``, ``ts``, ``inst``, then the templates'
    own). Numbers are nullable 64-bit integers (``Int64``, or ``UInt64`` for a column beyond it), exact: nanosecond
    times and order ids do not fit a float. A field an event lacks is ``<NA>``; character fields are strings.
    Needs pandas (``pip install 'mdfanout[pandas]'``)."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("mdfanout.to_dataframe needs pandas: pip install 'mdfanout[pandas]'") from e
    wanted = None if types is None else set(types)
    rows = [e for e in events if wanted is None or e["type"] in wanted]
    names = dict.fromkeys(name for row in rows for name in row)
    columns = {}
    for name in names:
        values = [row.get(name) for row in rows]
        if all(v is None or isinstance(v, int) for v in values):
            try:
                columns[name] = pd.array(values, dtype="Int64")
            except (OverflowError, TypeError, ValueError):
                columns[name] = pd.array(values, dtype="UInt64")
        else:
            columns[name] = pd.array(values, dtype="string")
    return pd.DataFrame(columns, index=pd.RangeIndex(len(rows)))


@dataclass
class Book:
    """One instrument's book: price levels, best first, each (price mantissa, shares, orders); prices x 10^-4."""

    instrument: int
    bids: list[tuple[int, int, int]] = field(default_factory=list)
    asks: list[tuple[int, int, int]] = field(default_factory=list)


def parse_books(dump: str) -> dict[int, Book]:
    """The books' canonical dump (``I``, ``B`` and ``S`` lines) as a Book per instrument with a resting order."""
    books: dict[int, Book] = {}
    book = None
    for line in dump.splitlines():
        kind, *numbers = line.split(" ")
        if kind == "I":
            book = books.setdefault(int(numbers[0]), Book(int(numbers[0])))
        elif kind in ("B", "S") and book is not None:
            price, shares, orders = (int(n) for n in numbers)
            (book.bids if kind == "B" else book.asks).append((price, shares, orders))
        else:
            raise ValueError(f"not a line of a books dump: {line!r}")
    return books


def dispatch(events: Iterable[dict[str, int | str]], handlers: Mapping[str, Handler],
             default: Handler | None = None) -> int:
    """Callbacks, as the Java and Rust SDKs' listeners: each event to the handler of its ``type`` (``"AddOrder"``,
    ``"STALE"``, ...), else to ``default`` when given, in order. Returns the events handed to a handler.

    >>> seen = []
    >>> dispatch([{"type": "STALE", "p": 0}], {"STALE": seen.append})
    1
    """
    handled = 0
    for event in events:
        handler = handlers.get(str(event["type"]), default)
        if handler is not None:
            handler(event)
            handled += 1
    return handled


class _Books:
    """What a live subscriber and a replay share: their books, counters and recording."""

    _inner: "_Subscriber | _Replay"

    def books(self) -> dict[int, Book]:
        """The order books now: every instrument with a resting order."""
        return parse_books(self._inner.books())

    def books_dump(self) -> str:
        """The books' canonical dump, as every SDK (and the ``record`` tool's ``--books-out``) writes it."""
        return self._inner.books()

    def counters(self) -> dict[str, int]:
        """The counters, by name (messages, gaps, missing, malformed, stale, recovered, a pair's sides ...)."""
        return self._inner.counters()

    def flush_recording(self) -> int:
        """Write what the recording has staged to its file (``OSError`` if it cannot be written); the messages
        recorded so far (0 without ``record_path``)."""
        return self._inner.flush_recording()


class Subscriber(_Books):
    """A subscriber of a feed's partitions over Aeron, through the media driver of this host.

    ``channel`` and ``stream_id_base`` are the fanout's (``--channel``, ``--stream-id-base``); ``aeron_dir`` the media
    driver's directory (``mdfanout media-driver --aeron-dir``; None: Aeron's default). Raises ``ConnectionError``
    when no media driver answers there. ``record_path``: every delivered message is also written there, in the
    ``record --out`` format of the Java tools (staged in Rust, nothing per message in Python; ``flush_recording``
    writes what is staged). Poll it from the thread that made it.

    Recovery (``recovery``, on by default as in every SDK): a late join, a gap, a restarted fanout or a stream silent
    for ``silent_timeout_s`` makes a partition stale (a ``STALE`` event); its messages are held back (up to
    ``recovery_buffer_bytes``) while the client subscribes to its snapshot stream (``snapshot_channel``, default the
    channel; ``snapshot_stream_id_base``, default the fanout's: ``stream_id_base`` + 10000), the snapshot arrives
    (``SNAPSHOT_BEGIN``, its state, ``SnapshotInstrument`` and ``SnapshotOrder`` events marked ``snapshot=1``,
    ``SNAPSHOT_END``), what was held back follows, then ``RECOVERED``. A wrong value is a ``ValueError``.

    A pair (``pair_channel``, side B's channel; ``pair_stream_id_base``, default the same as side A's): both sides are
    received and arbitrated by the exchange's sequences, each message delivered once from the side that had it first
    (``ss`` is then its chain position); what one side lacks is taken from the other within ``arbitration_wait_s``
    (20 ms), so one side's fanout dying, restarting or falling behind is no gap and no ``STALE``. ``counters()`` has
    each side's ``side_a_messages``, ``side_a_duplicates``, ``side_a_refused`` and ``side_a_mismatches`` (and B's);
    a side that disagrees is refused and reported on standard error.
    """

    def __init__(self, channel: str, partitions: list[int], stream_id_base: int = 1000,
                 aeron_dir: str | None = None, connect_timeout_s: float = 5.0,
                 record_path: str | os.PathLike[str] | None = None, recovery: bool = True,
                 snapshot_channel: str | None = None, snapshot_stream_id_base: int | None = None,
                 recovery_buffer_bytes: int = 16 * 1024 * 1024, silent_timeout_s: float = 2.0,
                 pair_channel: str | None = None, pair_stream_id_base: int | None = None,
                 arbitration_wait_s: float = 0.02) -> None:
        self._inner = _Subscriber(channel, list(partitions), stream_id_base, aeron_dir, connect_timeout_s,
                                  None if record_path is None else os.fspath(record_path), recovery, snapshot_channel,
                                  snapshot_stream_id_base, recovery_buffer_bytes, silent_timeout_s, pair_channel,
                                  pair_stream_id_base, arbitration_wait_s)

    def poll(self, timeout_s: float = 0.0, fragment_limit: int = 256) -> list[dict[str, int | str]]:
        """What was delivered since the last poll, waiting up to ``timeout_s`` for something: events, in order."""
        return [parse_event(line) for line in self._inner.poll(fragment_limit, timeout_s)]

    def events(self, timeout_s: float) -> Iterator[dict[str, int | str]]:
        """Every event delivered until ``timeout_s`` passes (or the iteration is left)."""
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            yield from self.poll(min(left, 0.1))

    def dispatch(self, handlers: Mapping[str, Handler], timeout_s: float, default: Handler | None = None) -> int:
        """Callbacks for ``timeout_s``: each event delivered to the handler of its type (``dispatch``)."""
        return dispatch(self.events(timeout_s), handlers, default)

    def window(self, seconds: float, types: Iterable[str] | None = None) -> "pandas.DataFrame":
        """The live stream for ``seconds`` as a DataFrame (``to_dataframe``; only ``types`` when given). Needs pandas."""
        return to_dataframe(list(self.events(seconds)), types)

    def is_connected(self) -> bool:
        """Whether every partition's stream has a publisher (the fanout is up)."""
        return self._inner.is_connected()



class Replay(_Books):
    """A trading session replayed from the archive (``mdfanout archive``), from a point, replay only.

    ``control_channel`` is the archive's (``mdfanout archive --control-channel``); ``start`` the point: ``"start"``,
    ``"seq:N"`` (stream sequence N of every partition), ``"seq:0=N,1=M"``, ``"ns:N"`` or an exchange time
    ``"HH:MM:SS[.fraction]"``. Every partition is replayed from its session's first message: what comes before the
    point is delivered as the state at it (events with ``snapshot=1``, applied to the books, not recorded), the rest
    as it came, until the recordings end (a ``REPLAY_END`` is not an event: ``is_ended()``). ``session``: the one named,
    default the newest the archive holds; ``replay_channel`` and ``response_channel``: an address of this host the
    archive reaches (default ``localhost:0``). Raises ``ConnectionError`` when the driver or the archive does not answer,
    the session or a partition's recordings are not there; ``ValueError`` for a bad start point. A hole in the
    recordings is a ``GAP`` event.
    """

    def __init__(self, control_channel: str, partitions: list[int], start: str = "start", stream_id_base: int = 1000,
                 aeron_dir: str | None = None, session: str | None = None, replay_channel: str | None = None,
                 response_channel: str | None = None, replay_stream_id: int | None = None, timeout_s: float = 10.0,
                 record_path: str | os.PathLike[str] | None = None) -> None:
        self._inner = _Replay(control_channel, list(partitions), start, stream_id_base, aeron_dir, session,
                              replay_channel, response_channel, replay_stream_id, timeout_s,
                              None if record_path is None else os.fspath(record_path))

    def poll(self, fragment_limit: int = 256) -> list[dict[str, int | str]]:
        """What was replayed since the last poll: events, in order."""
        return [parse_event(line) for line in self._inner.poll(fragment_limit)]

    def events(self) -> Iterator[dict[str, int | str]]:
        """Every event until the recordings end."""
        while not self._inner.is_ended():
            polled = self.poll()
            if not polled:
                time.sleep(0.0002)
            yield from polled
        yield from self.poll()

    def to_dataframe(self, types: Iterable[str] | None = None) -> "pandas.DataFrame":
        """The rest of the replay as a DataFrame (``to_dataframe``; only ``types`` when given). Needs pandas."""
        return to_dataframe(list(self.events()), types)

    def is_ended(self) -> bool:
        """Whether every partition's recordings were replayed."""
        return self._inner.is_ended()

    @property
    def session(self) -> str:
        """The session replayed."""
        return self._inner.session()

    def problems(self) -> list[str]:
        """What the archive could not give as it should (a recording that starts the stream again)."""
        return self._inner.problems()

