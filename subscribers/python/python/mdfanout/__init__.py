"""Subscriber SDK for the mdfanout market-data feed, over its Rust core (docs/SDK-PYTHON.md).

``Subscriber``: the live feed over Aeron (events as dictionaries, books as price levels, a window of it as a pandas
DataFrame: ``to_dataframe``). ``Replay``: a session from the archive, from a point (its events, books, a DataFrame). ``Decoder``: the SDK's packet
processing without a transport (validation, per-partition sequencing, order books). ``conformance_run``: the
conformance suite every SDK runs.
"""

from ._mdfanout import Decoder, conformance_run, read_case
from .live import Book, Replay, Subscriber, dispatch, parse_books, parse_event, read_events, to_dataframe

__all__ = ["Book", "Decoder", "Replay", "Subscriber", "conformance_run", "dispatch", "parse_books", "parse_event",
           "read_case", "read_events", "to_dataframe"]
