package io.mdfanout.fanout.state;


import java.lang.invoke.VarHandle;

import static io.mdfanout.fanout.state.StateLayout.LAST_EXCHANGE_SEQUENCE_OFFSET;
import static io.mdfanout.fanout.state.StateLayout.LAST_EXCHANGE_TIMESTAMP_OFFSET;
import static io.mdfanout.fanout.state.StateLayout.LAST_STREAM_SEQUENCE_OFFSET;
import static io.mdfanout.fanout.state.StateLayout.RING_POSITION_OFFSET;
import static io.mdfanout.fanout.state.StateLayout.UNDO_CAPACITY;
import static io.mdfanout.fanout.state.StateLayout.UNDO_COUNT_OFFSET;
import static io.mdfanout.fanout.state.StateLayout.UNDO_ENTRY_LENGTH;
import static io.mdfanout.fanout.state.StateLayout.UNDO_LOG_OFFSET;
import static io.mdfanout.fanout.state.StateLayout.UNDO_RING_POSITION_OFFSET;
import static io.mdfanout.fanout.state.StateLayout.UNDO_SAVED_LAST_EXCHANGE_SEQUENCE_OFFSET;
import static io.mdfanout.fanout.state.StateLayout.UNDO_SAVED_LAST_EXCHANGE_TIMESTAMP_OFFSET;
import static io.mdfanout.fanout.state.StateLayout.UNDO_SAVED_LAST_STREAM_SEQUENCE_OFFSET;

/**
 * Makes the application of one message atomic against kill -9. Stores to a MAP_SHARED mapping
 * outlive the process, so the only risk is a message half applied when the process dies. Every
 * store goes through {@link #store(int, long)}: the old value is appended to the log and the log
 * count published (release, then a StoreStore fence) before the data store. {@link #commit(long)}
 * writes the commit marker (the ring position after the record) and then empties the log.
 * <p>
 * The three "last applied" fields change with every message, so they are not logged store by store
 * (three log entries per message, the largest share of the log's work): {@link #begin(long)} saves
 * their values in the undo header before it names the message, and {@link #storeLastApplied(int, long)}
 * then writes them in place.
 * <p>
 * On open, {@link #recover(String)}: a ring position in the undo header that is not the committed
 * one belongs to an unfinished message: the saved "last applied" fields are put back, then the
 * logged old values are restored in reverse order. Restoring is idempotent, so dying during
 * recovery and recovering again is safe. A log whose ring position equals the commit marker
 * belongs to a message that finished; it is just emptied.
 */
final class UndoLog
{
    private final StateMemory memory;
    private final long fileLength;
    private int count;
    private boolean overflowed;

    /** Test hook: when positive, the step that brings it to 0 throws {@link SimulatedCrash} instead of running. */
    int crashCountdown;

    UndoLog(final StateMemory memory, final long fileLength)
    {
        this.memory = memory;
        this.fileLength = fileLength;
    }

    /**
     * Start applying one record. Written while the log is empty, so recovery never reads it stale.
     *
     * @param ringPosition ring position after the record: what {@link #commit(long)} will write.
     */
    void begin(final long ringPosition)
    {
        // Saved while the header still names the last committed message, so that a death here
        // leaves nothing to restore; the release store below orders these before the message starts.
        final StateMemory memory = this.memory;
        memory.putLong(UNDO_SAVED_LAST_STREAM_SEQUENCE_OFFSET, memory.getLong(LAST_STREAM_SEQUENCE_OFFSET));
        memory.putLong(UNDO_SAVED_LAST_EXCHANGE_SEQUENCE_OFFSET, memory.getLong(LAST_EXCHANGE_SEQUENCE_OFFSET));
        memory.putLong(UNDO_SAVED_LAST_EXCHANGE_TIMESTAMP_OFFSET, memory.getLong(LAST_EXCHANGE_TIMESTAMP_OFFSET));
        memory.putLongRelease(UNDO_RING_POSITION_OFFSET, ringPosition);
    }

    /**
     * Store one of the three "last applied" fields, whose value before the message {@link #begin(long)}
     * saved: no log entry.
     *
     * @param offset LAST_STREAM_SEQUENCE_OFFSET, LAST_EXCHANGE_SEQUENCE_OFFSET or LAST_EXCHANGE_TIMESTAMP_OFFSET.
     * @param value  the new value.
     */
    void storeLastApplied(final int offset, final long value)
    {
        step();
        memory.putLong(offset, value);
    }

    /**
     * Store a long at an aligned offset, logging the old value first. Unchanged values are not logged.
     *
     * @return true unless the log was full (the store was still made, unprotected).
     */
    boolean store(final int offset, final long value)
    {
        final long old = memory.getLong(offset);
        if (old == value)
        {
            return true;
        }
        step();
        boolean logged = true;
        if (count < UNDO_CAPACITY)
        {
            final int entry = UNDO_LOG_OFFSET + count * UNDO_ENTRY_LENGTH;
            memory.putLong(entry, offset);
            memory.putLong(entry + 8, old);
            memory.putLongRelease(UNDO_COUNT_OFFSET, ++count);
            VarHandle.storeStoreFence(); // the data store must not become visible before its log entry
        }
        else
        {
            overflowed = true;
            logged = false;
        }
        memory.putLong(offset, value);
        return logged;
    }

    /**
     * Finish the record: write the commit marker, then empty the log.
     *
     * @param ringPosition ring position after the record, as given to {@link #begin(long)}.
     * @return true when the log overflowed during this message (it was applied, but unprotected).
     */
    boolean commit(final long ringPosition)
    {
        step();
        memory.putLongRelease(RING_POSITION_OFFSET, ringPosition);
        step();
        if (count > 0)
        {
            memory.putLongRelease(UNDO_COUNT_OFFSET, 0);
            count = 0;
        }
        final boolean result = overflowed;
        overflowed = false;
        return result;
    }

    /**
     * Bring the file back to a committed state after the process died.
     *
     * @param file for the error message.
     * @return number of stores rolled back (0 when the last message had committed).
     * @throws IllegalStateException when the log is corrupt.
     */
    int recover(final String file)
    {
        final long logged = memory.getLongVolatile(UNDO_COUNT_OFFSET);
        if (logged < 0 || logged > UNDO_CAPACITY)
        {
            throw new IllegalStateException("state file " + file + " is corrupt: undo count " + logged +
                "; delete it (or choose another --state-dir) to start with empty state");
        }
        int rolledBack = 0;
        if (memory.getLong(RING_POSITION_OFFSET) != memory.getLong(UNDO_RING_POSITION_OFFSET))
        {
            memory.putLong(LAST_STREAM_SEQUENCE_OFFSET, memory.getLong(UNDO_SAVED_LAST_STREAM_SEQUENCE_OFFSET));
            memory.putLong(LAST_EXCHANGE_SEQUENCE_OFFSET, memory.getLong(UNDO_SAVED_LAST_EXCHANGE_SEQUENCE_OFFSET));
            memory.putLong(LAST_EXCHANGE_TIMESTAMP_OFFSET, memory.getLong(UNDO_SAVED_LAST_EXCHANGE_TIMESTAMP_OFFSET));
            for (int i = (int)logged - 1; i >= 0; i--)
            {
                final int entry = UNDO_LOG_OFFSET + i * UNDO_ENTRY_LENGTH;
                final long offset = memory.getLong(entry);
                if (offset < 0 || offset > fileLength - 8 || (offset & 7) != 0)
                {
                    throw new IllegalStateException("state file " + file + " is corrupt: undo entry " + i +
                        " names offset " + offset + "; delete it (or choose another --state-dir) to start with empty state");
                }
                memory.putLong((int)offset, memory.getLong(entry + 8));
                rolledBack++;
            }
            VarHandle.storeStoreFence();
        }
        memory.putLongRelease(UNDO_COUNT_OFFSET, 0);
        count = 0;
        return rolledBack;
    }

    private void step()
    {
        if (crashCountdown > 0 && --crashCountdown == 0)
        {
            throw new SimulatedCrash();
        }
    }

    /** Thrown by the test hook to stop an apply half way, as kill -9 would. */
    static final class SimulatedCrash extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        SimulatedCrash()
        {
            super("simulated crash", null, false, false);
        }
    }
}
