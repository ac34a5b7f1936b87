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

class Subscriber:
    """The live client over Aeron (wrapped by ``mdfanout.Subscriber``): canonical lines, books, counters."""

    def __init__(self, channel: str, partitions: list[int], stream_id_base: int = 1000,
                 aeron_dir: str | None = None, connect_timeout_s: float = 5.0,
                 record_path: str | None = None, recovery: bool = True, snapshot_channel: str | None = None,
                 snapshot_stream_id_base: int | None = None, recovery_buffer_bytes: int = 16 * 1024 * 1024,
                 silent_timeout_s: float = 2.0, pair_channel: str | None = None,
                 pair_stream_id_base: int | None = None, arbitration_wait_s: float = 0.02) -> None: ...
    def poll(self, fragment_limit: int = 256, timeout_s: float = 0.0) -> list[str]:
        """The canonical lines of what was delivered, waiting up to ``timeout_s`` for something."""
    def is_connected(self) -> bool:
        """Whether every partition's stream has a publisher."""
    def books(self) -> str:
        """The books' canonical dump."""
    def counters(self) -> dict[str, int]:
        """The counters, by name."""
    def flush_recording(self) -> int:
        """Write the recording's staged records; the messages recorded so far."""

class Replay:
    """A session replayed from the archive (wrapped by ``mdfanout.Replay``): canonical lines, books, counters."""

    def __init__(self, control_channel: str, partitions: list[int], start: str = "start", stream_id_base: int = 1000,
                 aeron_dir: str | None = None, session: str | None = None, replay_channel: str | None = None,
                 response_channel: str | None = None, replay_stream_id: int | None = None, timeout_s: float = 10.0,
                 record_path: str | None = None) -> None: ...
    def poll(self, fragment_limit: int = 256) -> list[str]:
        """The canonical lines of what was replayed since the last poll."""
    def is_ended(self) -> bool:
        """Whether every partition's recordings were replayed."""
    def session(self) -> str:
        """The session replayed."""
    def problems(self) -> list[str]:
        """What the archive could not give as it should."""
    def books(self) -> str:
        """The books' canonical dump."""
    def counters(self) -> dict[str, int]:
        """The counters, by name."""
    def flush_recording(self) -> int:
        """Write the staged recording; the messages recorded."""
