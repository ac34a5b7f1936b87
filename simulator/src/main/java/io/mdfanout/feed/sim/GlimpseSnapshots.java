package io.mdfanout.feed.sim;

import org.agrona.ExpandableDirectByteBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands GLIMPSE snapshots of the live session from the sending thread, which owns the {@link GlimpseState}, to the
 * GLIMPSE server's thread, which writes them to a client.
 * <p>
 * Why a hand-off rather than a lock: the state has one writer, the sender, and must be read at a point between two
 * packets for the End of Snapshot's sequence number to be exact. So the server thread asks ({@link #take(long)}
 * bumps a request number) and the sender, at its next {@link #poll()} (between duty cycles, when every message it
 * generated has been packed, sent and applied), writes the spin into the shared buffer and publishes it by storing
 * the request number it served. The buffer has one owner at a time: the sender from the request until it is
 * served, the server thread from then until its next request. When no request is pending, {@link #poll()} costs
 * the sender one volatile read.
 * <p>
 * After the session's end ({@link #sessionEnded()}, called by the sender once it will apply nothing more), the
 * state no longer changes and the server thread writes snapshots itself; a request pending at that moment is
 * either served by the sender's last poll or, seeing the end, by the server thread.
 * <p>
 * What a request costs the sender: one pass over the state, writing about 43 bytes per open order (a few
 * milliseconds per 100,000 orders), during which no packet is sent.
 */
public final class GlimpseSnapshots
{
    /** Initial capacity of the snapshot buffer; it grows to the largest snapshot written. */
    public static final int INITIAL_BUFFER_BYTES = 64 * 1024;

    private static final int TOO_LARGE = -1;

    private final GlimpseState state;
    private final ExpandableDirectByteBuffer buffer = new ExpandableDirectByteBuffer(INITIAL_BUFFER_BYTES);

    private volatile long requested;
    private volatile long served;
    private volatile boolean ended;

    /** Written with the buffer by whichever thread writes the snapshot; published by served or ended. */
    private int length;
    private int messages;
    private long nextSequence;
    private long requiredBytes;

    /**
     * Creates the hand-off.
     *
     * @param state the sender's state.
     */
    public GlimpseSnapshots(final GlimpseState state)
    {
        this.state = state;
    }

    /**
     * The sender's side, between duty cycles: writes the snapshot when one was requested.
     *
     * @return 1 when a snapshot was written, else 0 (for the idle strategy).
     */
    public int poll()
    {
        final long request = requested;
        if (request == served)
        {
            return 0;
        }
        write();
        served = request;
        return 1;
    }

    /**
     * The sender's side: the session has ended, nothing more will be applied to the state; from now on the server
     * thread writes the snapshots itself.
     */
    public void sessionEnded()
    {
        ended = true;
    }

    /**
     * Whether the sender has declared the session's end.
     *
     * @return true after {@link #sessionEnded()}.
     */
    public boolean isSessionEnded()
    {
        return ended;
    }

    /**
     * The server thread's side: asks for a snapshot and waits for it. One caller at a time (the server's thread);
     * the returned snapshot's bytes stay valid until the next call.
     *
     * @param timeoutNs how long to wait for the sender.
     * @return the snapshot, or null when the sender did not answer in time (it is stalled).
     * @throws IllegalStateException when the state is too large to spin into one buffer.
     */
    public Snapshot take(final long timeoutNs)
    {
        final long request = requested + 1;
        requested = request;
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (true)
        {
            if (served == request)
            {
                return snapshot();
            }
            if (ended)
            {
                // Written by the sender after its last poll, so served is final now: re-read it.
                if (served != request)
                {
                    write();
                }
                return snapshot();
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                return null;
            }
            LockSupport.parkNanos(50_000);
        }
    }

    private void write()
    {
        final long expected = state.snapshotLength();
        if (expected > ExpandableDirectByteBuffer.MAX_BUFFER_LENGTH)
        {
            length = TOO_LARGE; // never thrown at the sender: the server thread reports it
            requiredBytes = expected;
            return;
        }
        buffer.putByte((int)expected - 1, (byte)0); // grow once, to the size needed, rather than by doublings
        length = state.writeSnapshot(buffer, 0);
        messages = state.lastSnapshotMessages();
        nextSequence = state.nextSequence();
    }

    private Snapshot snapshot()
    {
        if (TOO_LARGE == length)
        {
            throw new IllegalStateException("GLIMPSE snapshot larger than one buffer can hold (" +
                ExpandableDirectByteBuffer.MAX_BUFFER_LENGTH + " bytes): " + requiredBytes + " bytes needed");
        }
        final ByteBuffer bytes = buffer.byteBuffer().duplicate();
        bytes.limit(length).position(0);
        return new Snapshot(bytes, messages, nextSequence);
    }

    /** One snapshot: the SoupBinTCP Sequenced Data packets to write, as they are. */
    public static final class Snapshot
    {
        private final ByteBuffer packets;
        private final int messages;
        private final long nextSequence;

        Snapshot(final ByteBuffer packets, final int messages, final long nextSequence)
        {
            this.packets = packets;
            this.messages = messages;
            this.nextSequence = nextSequence;
        }

        /**
         * The packets, position 0 to limit: every state message, then End of Snapshot.
         *
         * @return a view of the shared buffer, valid until the next {@link GlimpseSnapshots#take(long)}.
         */
        public ByteBuffer packets()
        {
            return packets;
        }

        /**
         * Messages in the spin, End of Snapshot included.
         *
         * @return the count.
         */
        public int messages()
        {
            return messages;
        }

        /**
         * The End of Snapshot's sequence number: the MoldUDP64 sequence of the next live message.
         *
         * @return the sequence.
         */
        public long nextSequence()
        {
            return nextSequence;
        }
    }
}
