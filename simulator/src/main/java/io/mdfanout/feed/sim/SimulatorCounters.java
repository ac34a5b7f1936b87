package io.mdfanout.feed.sim;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteBuffer;

/**
 * The simulator's counters: written by the sending thread (release increments), the GLIMPSE session counters by the
 * GLIMPSE server's thread (one writer each), readable from any thread (stats line, later the Prometheus exporter)
 * through {@link #countersReader()}.
 */
public final class SimulatorCounters implements AutoCloseable
{
    /** Counter type id of every simulator counter. */
    public static final int SIMULATOR_COUNTER_TYPE_ID = io.mdfanout.wire.MdfanoutCounters.SIMULATOR_TYPE_ID;

    private static final int COUNTERS = 32;

    private final CountersManager countersManager;
    private final AtomicCounter messagesSent;
    private final AtomicCounter packetsSent;
    private final AtomicCounter heartbeatsSent;
    private final AtomicCounter bytesSent;
    private final AtomicCounter sendErrors;
    private final AtomicCounter fileErrors;
    private final AtomicCounter lineAPacketsSent;
    private final AtomicCounter lineADataPacketsDropped;
    private final AtomicCounter lineBPacketsSent;
    private final AtomicCounter lineBDataPacketsDropped;
    private final AtomicCounter retransmitRequestsReceived;
    private final AtomicCounter retransmitRequestsRejected;
    private final AtomicCounter retransmitRequestsPartlyServed;
    private final AtomicCounter retransmitMessagesSent;
    private final AtomicCounter retransmitPacketsSent;
    private final AtomicCounter retransmitPacketsDropped;
    private final AtomicCounter retransmitRequestsIgnored;
    private final AtomicCounter pcapErrors;
    private final AtomicCounter glimpseSessionsServed;
    private final AtomicCounter glimpseLoginsRejected;
    private final AtomicCounter glimpseSessionsFailed;
    private final AtomicCounter glimpseMessagesSent;
    private final AtomicCounter glimpseInconsistentMessages;

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
        lineAPacketsSent = countersManager.newCounter("simulator: line A packets sent (data, heartbeat, end of session)",
            SIMULATOR_COUNTER_TYPE_ID);
        lineADataPacketsDropped = countersManager.newCounter("simulator: line A data packets lost by loss injection",
            SIMULATOR_COUNTER_TYPE_ID);
        lineBPacketsSent = countersManager.newCounter("simulator: line B packets sent (data, heartbeat, end of session)",
            SIMULATOR_COUNTER_TYPE_ID);
        lineBDataPacketsDropped = countersManager.newCounter("simulator: line B data packets lost by loss injection",
            SIMULATOR_COUNTER_TYPE_ID);
        retransmitRequestsReceived = countersManager.newCounter("simulator: retransmission requests received",
            SIMULATOR_COUNTER_TYPE_ID);
        retransmitRequestsRejected = countersManager.newCounter(
            "simulator: retransmission requests rejected (malformed, other session, outside history): no reply",
            SIMULATOR_COUNTER_TYPE_ID);
        retransmitRequestsPartlyServed = countersManager.newCounter(
            "simulator: retransmission requests partly outside history (the held part was sent)",
            SIMULATOR_COUNTER_TYPE_ID);
        retransmitMessagesSent = countersManager.newCounter("simulator: messages retransmitted",
            SIMULATOR_COUNTER_TYPE_ID);
        retransmitPacketsSent = countersManager.newCounter("simulator: retransmission packets sent",
            SIMULATOR_COUNTER_TYPE_ID);
        retransmitPacketsDropped = countersManager.newCounter(
            "simulator: retransmission packets dropped (--retransmit-drop-percent)", SIMULATOR_COUNTER_TYPE_ID);
        retransmitRequestsIgnored = countersManager.newCounter(
            "simulator: retransmission requests ignored (queue full, or silent after --retransmit-silent-after)",
            SIMULATOR_COUNTER_TYPE_ID);
        pcapErrors = countersManager.newCounter("simulator: pcap write errors (capture stopped)",
            SIMULATOR_COUNTER_TYPE_ID);
        glimpseSessionsServed = countersManager.newCounter(
            "simulator: GLIMPSE sessions served (spin written through End of Snapshot)", SIMULATOR_COUNTER_TYPE_ID);
        glimpseLoginsRejected = countersManager.newCounter("simulator: GLIMPSE logins rejected",
            SIMULATOR_COUNTER_TYPE_ID);
        glimpseSessionsFailed = countersManager.newCounter(
            "simulator: GLIMPSE sessions failed (no login, malformed, client gone or stalled, sender stalled)",
            SIMULATOR_COUNTER_TYPE_ID);
        glimpseMessagesSent = countersManager.newCounter("simulator: GLIMPSE messages sent, End of Snapshot included",
            SIMULATOR_COUNTER_TYPE_ID);
        glimpseInconsistentMessages = countersManager.newCounter(
            "simulator: messages the GLIMPSE state skipped (unknown order, duplicate add, truncated)",
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

    /** @return packets line A handed to its socket. */
    public AtomicCounter lineAPacketsSent()
    {
        return lineAPacketsSent;
    }

    /** @return data packets line A lost by loss injection. */
    public AtomicCounter lineADataPacketsDropped()
    {
        return lineADataPacketsDropped;
    }

    /** @return packets line B handed to its socket. */
    public AtomicCounter lineBPacketsSent()
    {
        return lineBPacketsSent;
    }

    /** @return data packets line B lost by loss injection. */
    public AtomicCounter lineBDataPacketsDropped()
    {
        return lineBDataPacketsDropped;
    }

    /** @return retransmission requests received. */
    public AtomicCounter retransmitRequestsReceived()
    {
        return retransmitRequestsReceived;
    }

    /** @return retransmission requests rejected without a reply. */
    public AtomicCounter retransmitRequestsRejected()
    {
        return retransmitRequestsRejected;
    }

    /** @return retransmission requests partly outside the history, answered with the held part. */
    public AtomicCounter retransmitRequestsPartlyServed()
    {
        return retransmitRequestsPartlyServed;
    }

    /** @return messages retransmitted. */
    public AtomicCounter retransmitMessagesSent()
    {
        return retransmitMessagesSent;
    }

    /** @return retransmission packets sent. */
    public AtomicCounter retransmitPacketsSent()
    {
        return retransmitPacketsSent;
    }

    /** @return retransmission packets dropped on purpose (--retransmit-drop-percent). */
    public AtomicCounter retransmitPacketsDropped()
    {
        return retransmitPacketsDropped;
    }

    /** @return retransmission requests ignored: the answer queue was full, or the server had fallen silent. */
    public AtomicCounter retransmitRequestsIgnored()
    {
        return retransmitRequestsIgnored;
    }

    /** @return pcap write errors. */
    public AtomicCounter pcapErrors()
    {
        return pcapErrors;
    }

    /** @return GLIMPSE sessions served through End of Snapshot. */
    public AtomicCounter glimpseSessionsServed()
    {
        return glimpseSessionsServed;
    }

    /** @return GLIMPSE logins rejected. */
    public AtomicCounter glimpseLoginsRejected()
    {
        return glimpseLoginsRejected;
    }

    /** @return GLIMPSE sessions that failed before End of Snapshot was written. */
    public AtomicCounter glimpseSessionsFailed()
    {
        return glimpseSessionsFailed;
    }

    /** @return GLIMPSE messages sent, End of Snapshot included. */
    public AtomicCounter glimpseMessagesSent()
    {
        return glimpseMessagesSent;
    }

    /** @return messages the GLIMPSE state skipped as inconsistent with the book or truncated. */
    public AtomicCounter glimpseInconsistentMessages()
    {
        return glimpseInconsistentMessages;
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
        lineAPacketsSent.close();
        lineADataPacketsDropped.close();
        lineBPacketsSent.close();
        lineBDataPacketsDropped.close();
        retransmitRequestsReceived.close();
        retransmitRequestsRejected.close();
        retransmitRequestsPartlyServed.close();
        retransmitMessagesSent.close();
        retransmitPacketsSent.close();
        retransmitPacketsDropped.close();
        retransmitRequestsIgnored.close();
        pcapErrors.close();
        glimpseSessionsServed.close();
        glimpseLoginsRejected.close();
        glimpseSessionsFailed.close();
        glimpseMessagesSent.close();
        glimpseInconsistentMessages.close();
    }
}
