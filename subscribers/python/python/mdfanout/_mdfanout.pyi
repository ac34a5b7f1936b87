class Decoder:
    """The SDK's packet processing without a transport, with order books."""

    def __init__(self, partitions: list[int]) -> None: ...
    def on_message(self, slot: int, session_id: int, message: bytes) -> None:
        """One whole wire message of the partition in ``slot``, from the publication with Aeron session id
        ``session_id``."""
    def books(self) -> str:
        """The books' canonical dump."""
    def counters(self) -> dict[str, int]:
        """The counters, by name."""

def conformance_run(case: bytes) -> str:
    """Play a conformance case (a ``.mdfc`` file's bytes) through the SDK; the canonical output."""

def read_case(case: bytes) -> tuple[int, list[tuple[int, int, int, bytes]]]:
    """A conformance case's partition count and records (kind, partition, session_id, bytes)."""
