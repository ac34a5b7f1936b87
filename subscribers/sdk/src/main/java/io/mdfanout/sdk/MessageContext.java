package io.mdfanout.sdk;

/**
 * Where a normalized message came from: its partition, its stream sequence and the sending time
 * of the packet that carried it. A flyweight reused for every message: read it during the
 * callback, copy what must outlive it.
 */
public final class MessageContext
{
    private int partition;
    private long streamSequence;
    private long sendingTime;
    private int templateId;
    private boolean snapshot;

    /**
     * Partition the message was received on.
     *
     * @return the partition number.
     */
    public int partition()
    {
        return partition;
    }

    /**
     * Stream sequence of the message within its partition stream (the first message of a stream is 1);
     * for snapshot content, the incremental stream sequence its state is consistent with.
     *
     * @return the stream sequence.
     */
    public long streamSequence()
    {
        return streamSequence;
    }

    /**
     * Sending time of the packet that carried the message, epoch nanoseconds as stamped by the fanout.
     *
     * @return the packet sending time.
     */
    public long sendingTime()
    {
        return sendingTime;
    }

    /**
     * SBE template id of the message.
     *
     * @return the template id.
     */
    public int templateId()
    {
        return templateId;
    }

    /**
     * Whether the message came from a snapshot (a state message re-sent inside a snapshot, a
     * SnapshotInstrument or a SnapshotOrder) rather than from the incremental stream. For snapshot
     * messages {@link #streamSequence()} is the stream sequence the state is consistent with.
     *
     * @return true for snapshot content.
     */
    public boolean isSnapshot()
    {
        return snapshot;
    }

    void packet(final int partition, final long sendingTime)
    {
        this.partition = partition;
        this.sendingTime = sendingTime;
        this.snapshot = false;
    }

    void snapshotPacket(final int partition, final long sendingTime)
    {
        this.partition = partition;
        this.sendingTime = sendingTime;
        this.snapshot = true;
    }

    void snapshot(final boolean snapshot)
    {
        this.snapshot = snapshot;
    }

    void message(final long streamSequence, final int templateId)
    {
        this.streamSequence = streamSequence;
        this.templateId = templateId;
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "MessageContext{partition=" + partition + ", streamSequence=" + streamSequence +
            ", sendingTime=" + sendingTime + ", templateId=" + templateId + ", snapshot=" + snapshot + '}';
    }
}
