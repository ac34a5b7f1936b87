"""Subscriber SDK for the mdfanout market-data feed, over its Rust core (docs/SDK-PYTHON.md).

Today: the SDK's packet processing without a transport (``Decoder``: validation, per-partition sequencing, order
books) and the conformance suite every SDK runs (``conformance_run``). The live client over Aeron is next (issue 39).
"""

from ._mdfanout import Decoder, conformance_run, read_case

__all__ = ["Decoder", "conformance_run", "read_case"]
