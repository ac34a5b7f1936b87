package io.mdfanout.feed.sim;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteBuffer;

/**
 * The simulator's counters: written by the sending thread (release increments), readable from any
 * thread (stats line, later the Prometheus exporter) through {@link #countersReader()}.
 */
public final class SimulatorCounters implements AutoCloseable
{
    /** Counter type id of every simulator counter. */
    public static final int SIMULATOR_COUNTER_TYPE_ID = 7101;

    private static final int COUNTERS = 8;

    private final CountersManager countersManager;
    private final AtomicCounter messagesSent;
    private final AtomicCounter packetsSent;
    private final AtomicCounter heartbeatsSent;
    private final AtomicCounter bytesSent;
    private final AtomicCounter sendErrors;
    private final AtomicCounter fileErrors;

    /**
     * Allocates the counters from the given manager.
     *
     * @param countersManager where the counters live.
     */
    public SimulatorCounters(final CountersManager countersManager)
    {
        this.countersManager = countersManager;
        messagesSent = countersManager.newCounter("simulator: ITCH messages packed into MoldUDP64 packets",
            SIMULATOR_COUNTER_TYPE_ID);
        packetsSent = countersManager.newCounter("simulator: MoldUDP64 packets sent (data, heartbeat, end of session)",
            SIMULATOR_COUNTER_TYPE_ID);
        heartbeatsSent = countersManager.newCounter("simulator: MoldUDP64 heartbeat packets sent",
            SIMULATOR_COUNTER_TYPE_ID);
        bytesSent = countersManager.newCounter("simulator: UDP payload bytes sent", SIMULATOR_COUNTER_TYPE_ID);
        sendErrors = countersManager.newCounter("simulator: UDP sends failed or not accepted (packet lost)",
            SIMULATOR_COUNTER_TYPE_ID);
        fileErrors = countersManager.newCounter("simulator: ITCH file write errors (file output stopped)",
            SIMULATOR_COUNTER_TYPE_ID);
    }

    /**
     * Creates the counters in a private, heap-free counters manager of their own.
     *
     * @return the counters.
     */
    public static SimulatorCounters create()
    {
        final UnsafeBuffer metadata = new UnsafeBuffer(
            ByteBuffer.allocateDirect(COUNTERS * CountersReader.METADATA_LENGTH));
        final UnsafeBuffer values = new UnsafeBuffer(
            ByteBuffer.allocateDirect(COUNTERS * CountersReader.COUNTER_LENGTH));
        return new SimulatorCounters(new CountersManager(metadata, values));
    }

    /**
     * The reader over the counters (labels and values), for exporters.
     *
     * @return the counters reader.
     */
    public CountersReader countersReader()
    {
        return countersManager;
    }

    /** @return ITCH messages packed into MoldUDP64 packets. */
    public AtomicCounter messagesSent()
    {
        return messagesSent;
    }

    /** @return MoldUDP64 packets sent, of every kind. */
    public AtomicCounter packetsSent()
    {
        return packetsSent;
    }

    /** @return heartbeat packets sent. */
    public AtomicCounter heartbeatsSent()
    {
        return heartbeatsSent;
    }

    /** @return UDP payload bytes sent. */
    public AtomicCounter bytesSent()
    {
        return bytesSent;
    }

    /** @return sends that failed or that the socket did not accept. */
    public AtomicCounter sendErrors()
    {
        return sendErrors;
    }

    /** @return ITCH file write errors. */
    public AtomicCounter fileErrors()
    {
        return fileErrors;
    }

    /**
     * Frees the counters in their manager.
     */
    public void close()
    {
        messagesSent.close();
        packetsSent.close();
        heartbeatsSent.close();
        bytesSent.close();
        sendErrors.close();
        fileErrors.close();
    }
}
